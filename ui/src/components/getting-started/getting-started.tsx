import { useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import { useLoad } from '../../state/hooks.ts';
import { useNotices } from '../notices/notices.tsx';
import styles from './getting-started.module.css';

/**
 * The empty inbox: how to point an application at the sandbox (base URL, a key, a curl
 * command, SMTP), so the first thing a new user sees is what to do next.
 */
export function GettingStarted({ smtpPort }: { smtpPort: number | null }) {
  const senders = useLoad((signal) => sandbox.senders({ signal }), []);
  const usable = (senders.data ?? []).filter((s) => !s.revoked);
  const [chosen, setChosen] = useState<string | null>(null);
  const sender = usable.find((s) => s.api_key === chosen) ?? usable[0];
  const key = sender?.api_key ?? 'YOUR-API-KEY';
  const origin = location.origin;
  const curl = `curl -X POST ${origin}/v1/email/send/ \\
  -H 'Authorization: Api-Key ${key}' \\
  -d recipient=user@example.com \\
  -d subject='Hello from my app' \\
  -d body='<h1>Hi!</h1><p>It works.</p>' \\
  -d plain_body='Hi! It works.'`;
  return (
    <section class={styles.gettingStarted} aria-labelledby="gs-title">
      <div class={styles.gsIcon} aria-hidden="true">
        <svg viewBox="0 0 48 48" aria-hidden="true">
          <rect x="6" y="12" width="36" height="26" rx="4" fill="none" stroke="currentColor" stroke-width="2.5" />
          <path d="M7 15l17 13 17-13" fill="none" stroke="currentColor" stroke-width="2.5" stroke-linejoin="round" />
        </svg>
      </div>
      <h2 id="gs-title">No email captured yet</h2>
      <p class="muted">Everything your app sends to this sandbox lands here, live. Nothing is ever delivered.</p>
      <ol class={styles.gsSteps}>
        <li>
          <h3>Point your app at the sandbox</h3>
          <p>
            Base URL: <code>{origin}</code>
          </p>
        </li>
        <li>
          <h3>Use an API key</h3>
          {senders.error ? (
            <p class="error">Could not load the senders: {reason(senders.error)}</p>
          ) : (
            <label class={styles.gsKey}>
              <span class="sr-only">API key</span>
              <select value={key} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
                {usable.map((s) => (
                  <option key={s.api_key} value={s.api_key}>
                    {s.api_key} · {s.name} ({s.team_name}){s.development_mode ? ' · Development Mode' : ''}
                  </option>
                ))}
              </select>
            </label>
          )}
          <p class="small muted">
            Header <code>Authorization: Api-Key {key}</code>
          </p>
        </li>
        <li>
          <h3>Send an email</h3>
          <pre class="code-block">{curl}</pre>
          <CopyButton text={curl} />
        </li>
        <li>
          <h3>Or send over SMTP</h3>
          <p>
            Host <code>{location.hostname}</code>, port <code>{smtpPort ?? 1025}</code>
            {smtpPort === null ? (
              <>
                {' '}
                (the default; <code>--smtp-port</code> changes it)
              </>
            ) : null}
            . No TLS; log in with any user name and an API key as the password to apply that sender's rules, or send without logging in.
          </p>
        </li>
      </ol>
    </section>
  );
}

function CopyButton({ text }: { text: string }) {
  const notices = useNotices();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      // navigator.clipboard exists only on https:// and localhost pages.
      if (!navigator.clipboard) throw new Error('This browser allows copying only on https:// or localhost pages.');
      await navigator.clipboard.writeText(text);
    } catch (error) {
      notices.fail('copy', 'Could not copy the command.', error, 'Select the command and copy it by hand.');
      return;
    }
    notices.succeeded('copy');
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class="button small" onClick={() => void copy()}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}
