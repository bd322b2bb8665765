import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import { Badge } from '../badges/badges.tsx';
import { diffFindings, type Finding } from './findings.ts';
import styles from './compare-page.module.css';

/** The check of both captures: which findings are new in the later one, which are gone, which stay. */
export function FindingsDiff({ a, b }: { a: string; b: string }) {
  const both = useLoad((signal) => Promise.all([sandbox.check(a, { signal }), sandbox.check(b, { signal })]), [a, b]);
  if (both.error) return <p class="banner error">Could not check the captures: {reason(both.error)}</p>;
  if (!both.data)
    return (
      <p class="muted pad" role="status">
        Checking both…
      </p>
    );
  const [before, after] = both.data;
  const { added, gone, kept } = diffFindings(before, after);
  const score = (r: typeof before) => (r.html ? r.html.score.toFixed(1) : '—');
  return (
    <div class={styles.findings}>
      <p>
        Compatibility score {score(before)} → <strong>{score(after)}</strong>
      </p>
      <FindingList title="New in the later capture" tone="bad" items={added} empty="No new findings." testId="findings-new" />
      <FindingList title="Gone (fixed or removed)" tone="good" items={gone} empty="None gone." testId="findings-gone" />
      <FindingList title="In both" tone="muted" items={kept} empty="None in both." testId="findings-kept" />
    </div>
  );
}

function FindingList({
  title,
  tone,
  items,
  empty,
  testId,
}: {
  title: string;
  tone: 'bad' | 'good' | 'muted';
  items: Finding[];
  empty: string;
  testId: string;
}) {
  return (
    <section aria-label={title} data-testid={testId}>
      <h3>
        {title} <span class="muted">({items.length})</span>
      </h3>
      {items.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul>
          {items.map((f) => (
            <li key={f.key}>
              <Badge tone={tone === 'muted' ? 'neutral' : tone === 'good' ? 'good' : f.severity === 'error' ? 'bad' : 'warn'}>{f.section}</Badge> {f.text}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
