import type { ClientViewId } from '../../../../client/pigeonhole-client.ts';

/** The client views, in the selector's order, with the names the selector shows. */
const CLIENT_CHOICES: { id: ClientViewId; label: string }[] = [
  { id: 'gmail-web', label: 'Gmail (web)' },
  { id: 'gmail-app', label: 'Gmail (app)' },
  { id: 'outlook-windows', label: 'Outlook (Windows)' },
  { id: 'outlook-com', label: 'Outlook.com' },
  { id: 'apple-mail', label: 'Apple Mail' },
  { id: 'yahoo', label: 'Yahoo Mail' },
  { id: 'images-off', label: 'Images off' },
];

/** As sent, or as one client would show it (an approximation: see the fidelity label). */
export function ClientSelect({ value, onChange }: { value: ClientViewId | null; onChange: (client: ClientViewId | null) => void }) {
  return (
    <label class="inline-field">
      Client
      <select
        value={value ?? ''}
        onChange={(e) => {
          const chosen = (e.target as HTMLSelectElement).value;
          onChange(CLIENT_CHOICES.find((c) => c.id === chosen)?.id ?? null);
        }}
        data-testid="client-select"
      >
        <option value="">As sent</option>
        {CLIENT_CHOICES.map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}
