import { describe, expect, it } from 'vitest';
import { PigeonholeError } from '../../client/pigeonhole-client.ts';
import { SandboxUnreachable } from '../../ui/src/sandbox.ts';
import { explain, Notices } from '../../ui/src/state/notices.ts';

const READ_ONLY = 'Not stored: the file system is read-only (/data/messages). Make the data directory writable; Pigeonhole picks it up by itself.';

describe('explain', () => {
  it("quotes the server's detail after the status, and adds nothing where the detail says what to do (507)", () => {
    expect(explain(new PigeonholeError(507, { detail: READ_ONLY }, 'Insufficient Storage'))).toEqual({
      detail: `The sandbox answered 507: ${READ_ONLY}`,
      advice: null,
    });
  });

  it('says what to do where the answer does not', () => {
    expect(explain(new PigeonholeError(507, null, 'Insufficient Storage'))).toEqual({
      detail: 'The sandbox answered 507 Insufficient Storage.',
      advice: 'The sandbox could not write to its data directory: /readyz says why.',
    });
    expect(explain(new PigeonholeError(404, { detail: 'Message not found.' }, 'Not Found'))).toEqual({
      detail: 'The sandbox answered 404: Message not found.',
      advice: 'It may have been deleted already, in another tab or through the API.',
    });
    expect(explain(new PigeonholeError(502, null, 'Bad Gateway'))).toEqual({
      detail: 'The sandbox answered 502 Bad Gateway.',
      advice: 'Try again; if it keeps failing, the server log says why.',
    });
    expect(explain(new PigeonholeError(400, { detail: '"zz" is not a duration like "30s".' }, 'Bad Request'))).toEqual({
      detail: 'The sandbox answered 400: "zz" is not a duration like "30s".',
      advice: null,
    });
  });

  it('says the sandbox cannot be reached when no answer came, and passes any other error on in its own words', () => {
    expect(explain(new SandboxUnreachable())).toEqual({
      detail: 'The sandbox cannot be reached: Pigeonhole may have stopped, or the network is down.',
      advice: 'Try again once it is back; the inbox reconnects by itself.',
    });
    expect(explain(new DOMException('Write permission denied.', 'NotAllowedError'))).toEqual({ detail: 'Write permission denied.', advice: null });
  });
});

describe('Notices', () => {
  it('keeps each failure until it is dismissed, and tells its listeners', () => {
    const notices = new Notices();
    let changes = 0;
    const unsubscribe = notices.subscribe(() => (changes += 1));
    notices.fail('delete:a', 'Could not delete the message.', new PigeonholeError(507, { detail: READ_ONLY }, 'Insufficient Storage'));
    notices.fail('read:b', 'Could not mark the message as read.', new SandboxUnreachable());
    expect(notices.items.map((n) => [n.key, n.title])).toEqual([
      ['delete:a', 'Could not delete the message.'],
      ['read:b', 'Could not mark the message as read.'],
    ]);
    notices.dismiss(notices.items[0]!.id);
    expect(notices.items.map((n) => n.key)).toEqual(['read:b']);
    expect(changes).toBe(3);
    unsubscribe();
    notices.dismiss(notices.items[0]!.id);
    expect(notices.items).toEqual([]);
    expect(changes).toBe(3);
  });

  it('replaces a failure by a newer one of the same action, and drops it when that action succeeds', () => {
    const notices = new Notices();
    notices.fail('clock', 'Could not move the sandbox clock.', new PigeonholeError(400, { detail: 'first' }, 'Bad Request'));
    notices.fail('clear', 'Could not delete the messages.', new SandboxUnreachable());
    notices.fail('clock', 'Could not move the sandbox clock.', new PigeonholeError(400, { detail: 'second' }, 'Bad Request'));
    expect(notices.items.map((n) => [n.key, n.detail])).toEqual([
      ['clear', 'The sandbox cannot be reached: Pigeonhole may have stopped, or the network is down.'],
      ['clock', 'The sandbox answered 400: second'],
    ]);
    notices.succeeded('clock');
    notices.succeeded('copy');
    expect(notices.items.map((n) => n.key)).toEqual(['clear']);
  });

  it('shows at most three, the newest', () => {
    const notices = new Notices();
    for (const id of ['a', 'b', 'c', 'd']) notices.fail(`delete:${id}`, 'Could not delete the message.', new SandboxUnreachable());
    expect(notices.items.map((n) => n.key)).toEqual(['delete:b', 'delete:c', 'delete:d']);
  });

  it('takes the advice the caller gives over the generic one', () => {
    const notices = new Notices();
    const refused = new DOMException('Write permission denied.', 'NotAllowedError');
    notices.fail('copy', 'Could not copy the command.', refused, 'Select the command and copy it by hand.');
    expect(notices.items[0]).toMatchObject({ detail: 'Write permission denied.', advice: 'Select the command and copy it by hand.' });
  });
});
