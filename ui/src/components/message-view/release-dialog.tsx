import { useEffect, useRef, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import type { Released } from '../../types.ts';
import dialogStyles from '../confirm-dialog/confirm-dialog.module.css';
import styles from './message-header.module.css';

/**
 * "Send to…": releases the capture to real inboxes through the configured relay, on purpose
 * only (POST /api/messages/{id}/release). The sandbox decides: without a relay, or for an
 * address the allow-list does not let through, nothing is sent and its reason is shown.
 */
export function ReleaseDialog({ id, open, onClose }: { id: string; open: boolean; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [to, setTo] = useState('');
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ released: Released | null; error: string | null }>({ released: null, error: null });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setResult({ released: null, error: null });
      dialog.showModal();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  const addresses = to
    .split(/[\s,;]+/)
    .map((a) => a.trim())
    .filter(Boolean);
  const send = async () => {
    setSending(true);
    try {
      setResult({ released: await sandbox.release(id, addresses), error: null });
    } catch (error) {
      setResult({ released: null, error: reason(error as Error) });
    } finally {
      setSending(false);
    }
  };
  const released = result.released;
  return (
    <dialog ref={ref} class={dialogStyles.dialog} aria-labelledby="release-title" onClose={onClose}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (addresses.length > 0 && !sending) void send();
        }}
      >
        <h2 id="release-title">Send to a real inbox</h2>
        <p class="small">
          The capture goes out unchanged but for its recipients, through the relay Pigeonhole was started with (<code>--relay</code>), and only to addresses{' '}
          <code>--relay-allow</code> lets through.
        </p>
        <label class={styles.releaseField}>
          <span>To</span>
          <input type="text" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} placeholder="me@my-company.example" autofocus />
        </label>
        {result.error ? (
          <p class="banner error" role="alert">
            Not sent: {result.error}
          </p>
        ) : null}
        {released ? (
          <p class="banner info" role="status">
            Sent through {released.relay} to {released.accepted.join(', ') || 'nobody'}
            {released.rejected.length ? `; refused by the relay: ${released.rejected.join(', ')}` : ''} ({released.response}).
          </p>
        ) : null}
        <div class={dialogStyles.dialogActions}>
          <button type="button" class="button" onClick={onClose}>
            Close
          </button>
          <button type="submit" class="button primary" disabled={addresses.length === 0 || sending}>
            {sending ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
