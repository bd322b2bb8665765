import { useEffect, useRef, useState } from 'preact/hooks';
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
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    import('./codemirror.ts').then(
      (editor) => {
        if (gone || !host.current) return;
        view.current = { editor, view: editor.createEditor({ parent: host.current, doc: value, language, label, onChange: (v) => changed.current(v) }) };
      },
      (error: Error) => setFailed(error.message),
    );
    return () => {
      gone = true;
      view.current?.view.destroy();
      view.current = null;
    };
  }, [language, label]);
  useEffect(() => {
    if (view.current) view.current.editor.setEditorValue(view.current.view, value);
  }, [value]);
  return (
    <div class={[styles.codeEditor, className ?? ''].join(' ').trim()} ref={host} data-testid="code-editor">
      {failed ? <p class="banner error">The editor could not load: {failed}</p> : null}
    </div>
  );
}
