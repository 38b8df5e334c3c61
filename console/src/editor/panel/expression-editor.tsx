/**
 * A one-field CodeMirror 6 editor for strings that may hold `{{ … }}`: completion of the roots
 * and fields the node can see (completion.ts), `{{ … }}` marked, undo of its own while focused,
 * and the value written back on every change. Tab leaves the field, so the panel stays usable
 * from the keyboard; Ctrl+Space opens the completion.
 */
import { autocompletion, type CompletionContext, type CompletionResult } from '@codemirror/autocomplete'
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { EditorState } from '@codemirror/state'
import {
  Decoration,
  EditorView,
  keymap,
  MatchDecorator,
  placeholder as placeholderText,
  ViewPlugin,
  type ViewUpdate,
} from '@codemirror/view'
import { useEffect, useRef } from 'preact/hooks'
import { completeAt } from './completion.ts'
import type { ExpressionScope } from './scope.ts'

export interface ExpressionEditorProps {
  value: string
  onChange(value: string): void
  scope: ExpressionScope
  /** The id of the element that labels the field. */
  labelledBy: string
  inputId: string
  testId: string
  multiline?: boolean
  placeholder?: string
}

const expressionMarks = new MatchDecorator({
  regexp: /\{\{[^}]*\}\}/g,
  decoration: Decoration.mark({ class: 'cm-expression' }),
})

const markExpressions = ViewPlugin.define(
  (view) => ({
    decorations: expressionMarks.createDeco(view),
    update(this: { decorations: ReturnType<MatchDecorator['createDeco']> }, u: ViewUpdate) {
      this.decorations = expressionMarks.updateDeco(u, this.decorations)
    },
  }),
  { decorations: (plugin) => plugin.decorations },
)

const theme = EditorView.theme({
  '&': { border: '1px solid var(--border, #ccc)', borderRadius: '4px', background: 'var(--bg, #fff)' },
  '&.cm-focused': { outline: '2px solid var(--accent, #2563eb)' },
  '.cm-content': { fontFamily: 'ui-monospace, monospace', padding: '4px 6px', minHeight: '1.6em' },
  '.cm-expression': { background: 'rgba(37, 99, 235, 0.12)', borderRadius: '3px' },
})

/**
 * The page's nonce: CodeMirror adds its style sheet as a style element, which the page's policy
 * allows only with the nonce its script carries.
 */
const pageNonce = () => (document.querySelector('script[nonce]') as HTMLScriptElement | null)?.nonce ?? ''

/** The CodeMirror source over the pure completion of completion.ts. */
function completionSource(scope: () => ExpressionScope) {
  return (context: CompletionContext): CompletionResult | null => {
    const text = context.state.doc.toString()
    const found = completeAt(text, context.pos, scope())
    if (!found || (!context.explicit && found.candidates.length === 0)) return null
    return {
      from: found.from,
      options: found.candidates.map((c) => ({ label: c.label, apply: c.apply, detail: c.detail })),
      validFor: /^[A-Za-z0-9_$-]*$/,
    }
  }
}

export function ExpressionEditor(props: ExpressionEditorProps) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView | null>(null)
  // The latest props, read by the editor's callbacks, which are made once.
  const latest = useRef(props)
  latest.current = props
  // Set while a value from outside is put in, so that it is not reported back as an edit.
  const syncing = useRef(false)
  // The values sent to onChange whose echo has not come back yet, oldest first.
  const sent = useRef<string[]>([])

  useEffect(() => {
    const single = props.multiline ? [] : [EditorState.transactionFilter.of((tr) => (tr.newDoc.lines > 1 ? [] : tr))]
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          autocompletion({ override: [completionSource(() => latest.current.scope)], activateOnTyping: true }),
          markExpressions,
          theme,
          EditorView.cspNonce.of(pageNonce()),
          props.multiline ? EditorView.lineWrapping : [],
          props.placeholder ? placeholderText(props.placeholder) : [],
          ...single,
          EditorView.contentAttributes.of({
            id: props.inputId,
            'aria-labelledby': props.labelledBy,
            'data-testid': props.testId,
            'aria-multiline': props.multiline ? 'true' : 'false',
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged || syncing.current) return
            const text = update.state.doc.toString()
            sent.current.push(text)
            latest.current.onChange(text)
          }),
        ],
      }),
    })
    view.current = editor
    return () => editor.destroy()
  }, [props.testId])

  // The value comes back from the editor's state after each change, possibly a keystroke late:
  // a value this editor sent is its own echo and is not put back; any other comes from outside
  // (undo, a rename) and replaces the text.
  useEffect(() => {
    const editor = view.current
    if (!editor) return
    const value = props.value ?? ''
    const echo = sent.current.indexOf(value)
    if (echo >= 0) {
      sent.current.splice(0, echo + 1)
      return
    }
    sent.current = []
    const current = editor.state.doc.toString()
    if (current === value) return
    syncing.current = true
    editor.dispatch({ changes: { from: 0, to: current.length, insert: value } })
    syncing.current = false
  }, [props.value])

  return <div class="expression-editor" ref={host} />
}
