import { useState } from 'preact/hooks';
import type { CheckReport } from '../../types.ts';
import { aiPrompt } from './ai-prompt.ts';

/** "Copy findings for an AI assistant": the check as a prompt, with the lines each finding points at. */
export function CopyForAi({ report, html }: { report: CheckReport; html: string | null }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const [fallback, setFallback] = useState<string | null>(null);
  const copy = async () => {
    const prompt = aiPrompt(report, html);
    try {
      await navigator.clipboard.writeText(prompt);
      setState('copied');
      setFallback(null);
    } catch {
      // No clipboard (a page over plain HTTP on another host): show the prompt to copy by hand.
      setState('failed');
      setFallback(prompt);
    }
  };
  return (
    <>
      <button type="button" class="button ghost small" onClick={copy} data-testid="copy-for-ai">
        {state === 'copied' ? 'Copied for an AI assistant' : 'Copy findings for an AI assistant'}
      </button>
      {fallback !== null ? (
        <label class="small" style={{ flexBasis: '100%' }}>
          The clipboard is not available here: copy the prompt below.
          <textarea readOnly rows={8} style={{ width: '100%' }} value={fallback} data-testid="ai-prompt" />
        </label>
      ) : null}
    </>
  );
}
