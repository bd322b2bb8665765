import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import styles from './code-editor.module.css';

type Editor = typeof import('./codemirror.ts');
type View = ReturnType<Editor['createEditor']>;

interface Props {
  value: string;
  onChange: (value: string) => void;
  language: 'html' | 'json';
  /** The editor's accessible name. */
  label: string;
  class?: string;
}

/** A CodeMirror 6 editor, loaded with the first one shown (its own chunk, not in the inbox's bundle). */
export function CodeEditor({ value, onChange, language, label, class: className }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<{ editor: Editor; view: View } | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;
  // The value when the editor's code arrives, not when it was asked for.
  const latest = useRef(value);
  latest.current = value;
  // What the editor last reported: a `value` equal to it is the editor's own typing coming back
  // (maybe a keystroke behind), not a change from outside to put in.
  const emitted = useRef(value);
  const emit = (v: string) => {
    emitted.current = v;
    changed.current(v);
  };
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    import('./codemirror.ts').then(
      (editor) => {
        if (gone || !host.current) return;
        view.current = { editor, view: editor.createEditor({ parent: host.current, doc: latest.current, language, label, onChange: emit }) };
      },
      (error: Error) => setFailed(error.message),
    );
    return () => {
      gone = true;
      view.current?.view.destroy();
      view.current = null;
    };
  }, [language, label]);
  // In the render's own commit (a plain effect runs later, after the editor may have moved on,
  // and would put a keystroke-old value back).
  useLayoutEffect(() => {
    if (value === emitted.current) return;
    emitted.current = value;
    if (view.current) view.current.editor.setEditorValue(view.current.view, value);
  }, [value]);
  return (
    <div class={[styles.codeEditor, className ?? ''].join(' ').trim()} ref={host} data-testid="code-editor">
      {failed ? <p class="banner error">The editor could not load: {failed}</p> : null}
    </div>
  );
}
