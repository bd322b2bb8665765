/**
 * The code editor, CodeMirror 6, loaded on first use (code-editor.tsx imports this module
 * dynamically): line numbers, undo history, search (Ctrl/Cmd-F), bracket matching, HTML or JSON
 * highlighting, in colours the tokens give for light and dark.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { html } from '@codemirror/lang-html';
import { json } from '@codemirror/lang-json';
import { bracketMatching, foldGutter, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';

/** Token colours from CSS variables (tokens.css), so both schemes keep AA contrast. */
const HIGHLIGHT = HighlightStyle.define([
  { tag: [tags.tagName, tags.angleBracket], color: 'var(--code-tag)' },
  { tag: [tags.attributeName, tags.propertyName], color: 'var(--code-attr)' },
  { tag: [tags.attributeValue, tags.string], color: 'var(--code-string)' },
  { tag: [tags.comment], color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [tags.number, tags.bool, tags.null, tags.keyword], color: 'var(--code-keyword)' },
]);

const THEME = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', height: '100%', fontSize: '13px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.5' },
  '.cm-content': { caretColor: 'var(--text)' },
  '.cm-cursor': { borderLeftColor: 'var(--text)' },
  '.cm-gutters': { backgroundColor: 'var(--surface-2)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--accent-soft)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--accent-soft)', color: 'var(--text)' },
  '&.cm-focused .cm-selectionBackground, .cm-selectionBackground': { backgroundColor: 'var(--selected)' },
  '.cm-panels': { backgroundColor: 'var(--surface-2)', color: 'var(--text)' },
  '.cm-searchMatch': { backgroundColor: 'var(--warn-soft)', outline: '1px solid var(--warn)' },
  '.cm-textfield, .cm-button': { color: 'var(--text)', backgroundColor: 'var(--surface)', backgroundImage: 'none' },
});

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  language: 'html' | 'json';
  label: string;
  onChange: (value: string) => void;
}

/**
 * An editor in `parent`; the caller destroys it. Changes are reported once a frame, after the
 * editor has finished its own update: a burst of keys costs the page one render, not one a key.
 */
export function createEditor({ parent, doc, language, label, onChange }: EditorOptions): EditorView {
  let frame = 0;
  const view: EditorView = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        foldGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        search({ top: true }),
        syntaxHighlighting(HIGHLIGHT),
        language === 'html' ? html({ autoCloseTags: false }) : json(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab]),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        THEME,
        EditorView.updateListener.of((update) => {
          if (!update.docChanged || frame !== 0) return;
          frame = requestAnimationFrame(() => {
            frame = 0;
            onChange(view.state.doc.toString());
          });
        }),
      ],
    }),
  });
  return view;
}

/** Puts `value` in the editor (a version loaded, a file changed on disk) unless it is there already. */
export function setEditorValue(view: EditorView, value: string): void {
  const current = view.state.doc.toString();
  if (current !== value) view.dispatch({ changes: { from: 0, to: current.length, insert: value } });
}
