import { COLOR_MODES, type ColorMode } from './dark-preview.ts';

/** Light, dark with the email's own styles (Apple Mail), dark by inversion (Gmail apps, Outlook.com). */
export function ColorModeSwitch({ value, onChange }: { value: ColorMode; onChange: (mode: ColorMode) => void }) {
  return (
    <div class="segmented" role="group" aria-label="Colour scheme">
      {COLOR_MODES.map((m) => (
        <button type="button" key={m.id} aria-pressed={value === m.id} onClick={() => onChange(m.id)} title={m.title}>
          {m.label}
        </button>
      ))}
    </div>
  );
}
