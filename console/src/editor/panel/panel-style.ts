/**
 * The node panel's styles, added once to the document as a constructed style sheet: the page's
 * policy allows no inline style element, and the panel ships in the editor's chunk rather than
 * in the first page's style sheet.
 */

const CSS = `
.node-panel { display: flex; flex-direction: column; gap: 0.75rem; padding: 0.75rem; overflow-y: auto; }
.node-panel header h2 { margin: 0; font-size: 1.1rem; }
.node-panel .field { display: flex; flex-direction: column; gap: 0.25rem; }
.node-panel .field-head { display: flex; justify-content: space-between; align-items: baseline; gap: 0.5rem; }
.node-panel fieldset.field { border: 1px solid #d0d7de; border-radius: 4px; padding: 0.5rem; }
.node-panel .field.invalid input, .node-panel .field.invalid select, .node-panel .field.invalid textarea,
.node-panel .field.invalid .cm-editor { border-color: #cf222e; }
.node-panel .field-warning { color: #9a6700; margin: 0; font-size: 0.85rem; }
.node-panel .preview { display: block; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 0.8rem;
  background: #f6f8fa; padding: 0.25rem 0.5rem; border-radius: 4px; max-height: 10rem; overflow: auto; }
.node-panel .array-item { display: flex; gap: 0.5rem; align-items: flex-start; }
.node-panel .array-item > .field { flex: 1; }
.node-panel .condition { display: flex; flex-direction: column; gap: 0.4rem; }
.node-panel .condition-row { display: grid; grid-template-columns: 1fr auto 8rem auto; gap: 0.25rem; align-items: center; }
.node-panel .dynamic-options { display: flex; flex-direction: column; gap: 0.25rem; }
.node-panel .sr-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`

let mounted = false

export function mountPanelStyle(): void {
  if (mounted || typeof document === 'undefined' || typeof CSSStyleSheet === 'undefined') return
  mounted = true
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(CSS)
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
}
