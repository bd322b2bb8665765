import { useEffect, useRef } from 'preact/hooks';
import styles from './confirm-dialog.module.css';

interface Props {
  open: boolean;
  title: string;
  message: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}

/** A modal yes/no question on the native <dialog> (focus trap and Esc for free). */
export function ConfirmDialog({ open, title, message, confirmLabel, onConfirm, onCancel }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} class={styles.dialog} aria-labelledby="dialog-title" onClose={onCancel}>
      <form method="dialog" onSubmit={(e) => e.preventDefault()}>
        <h2 id="dialog-title">{title}</h2>
        <p>{message}</p>
        <div class={styles.dialogActions}>
          <button type="button" class="button" onClick={onCancel} autofocus>
            Cancel
          </button>
          <button type="button" class="button danger" onClick={onConfirm}>
            {confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
