import { useEffect, useState } from 'preact/hooks';
import { sandbox } from '../../sandbox.ts';
import { useDebounced } from '../../state/hooks.ts';
import type { TemplateFile } from '../../types.ts';
import { CodeEditor } from '../code-editor/code-editor.tsx';
import { useNotices } from '../notices/notices.tsx';
import styles from './template-files.module.css';

/** What is wrong with the sample data, or null: it must be a JSON object. */
function problem(text: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `Not JSON: ${(error as Error).message}`;
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : 'The sample data must be a JSON object: {"name": "Ada"}.';
}

/** The values of one file's `{{variables}}`, as JSON, checked as typed and kept once valid. */
export function SampleData({ file, onSaved }: { file: TemplateFile; onSaved: () => void }) {
  const notices = useNotices();
  const [text, setText] = useState(() => JSON.stringify(file.sample, null, 2));
  const settled = useDebounced(text, 400);
  const wrong = problem(text);
  useEffect(() => {
    if (problem(settled) !== null || settled === JSON.stringify(file.sample, null, 2)) return;
    sandbox.saveTemplateSample(file.name, JSON.parse(settled) as Record<string, unknown>).then(
      () => {
        notices.succeeded('sample');
        onSaved();
      },
      (error) => notices.fail('sample', 'Could not keep the sample data.', error),
    );
  }, [settled]);
  return (
    <section class={styles.sample} aria-labelledby="sample-title">
      <h2 id="sample-title">Sample data</h2>
      <p class="muted small">{file.variables.length ? `Variables: ${file.variables.map((v) => `{{${v}}}`).join(', ')}` : 'This file uses no {{variables}}.'}</p>
      <CodeEditor value={text} onChange={setText} language="json" label={`Sample data for ${file.name}`} class={styles.sampleCode} />
      <p class={wrong ? 'error small' : 'muted small'} role="status" data-testid="sample-status">
        {wrong ?? 'Valid: kept for this file.'}
      </p>
    </section>
  );
}
