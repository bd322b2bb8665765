import { useState } from 'preact/hooks';
import { comparePick, previousVersion } from '../../state/compare.ts';
import { compareHref, navigate } from '../../state/route.ts';
import type { MessageSummary } from '../../types.ts';
import { useNotices } from '../notices/notices.tsx';

/**
 * Compare this capture: with its previous version (the newest earlier capture with the same
 * subject from the same sender), or with any other capture: pick one, open the other, compare.
 */
export function CompareLinks({ message }: { message: MessageSummary }) {
  const notices = useNotices();
  const [picked, setPicked] = useState(comparePick.get);
  const [looking, setLooking] = useState(false);
  const [none, setNone] = useState(false);
  const withPrevious = async () => {
    setLooking(true);
    try {
      const previous = await previousVersion(message);
      notices.succeeded('previous');
      if (previous) navigate(compareHref(previous.id, message.id));
      else setNone(true);
    } catch (error) {
      notices.fail('previous', 'Could not look for the previous version.', error);
    } finally {
      setLooking(false);
    }
  };
  const pick = (id: string | null) => {
    comparePick.set(id);
    setPicked(id);
  };
  return (
    <span class="share-actions">
      <button
        type="button"
        class="button ghost small"
        onClick={() => void withPrevious()}
        disabled={looking || none}
        title="Side by side with the newest earlier capture with this subject from this sender"
      >
        {none ? 'No previous version' : looking ? 'Looking…' : 'Compare with previous'}
      </button>
      {picked && picked !== message.id ? (
        <button
          type="button"
          class="button ghost small"
          onClick={() => {
            pick(null);
            navigate(compareHref(picked, message.id));
          }}
        >
          Compare with picked
        </button>
      ) : (
        <button
          type="button"
          class="button ghost small"
          aria-pressed={picked === message.id}
          onClick={() => pick(picked === message.id ? null : message.id)}
          title="Pick this capture, open another, then compare the two"
        >
          {picked === message.id ? 'Picked for compare' : 'Pick for compare'}
        </button>
      )}
    </span>
  );
}
