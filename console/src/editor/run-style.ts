/**
 * The styles of the editor's run parts (the test bar, the glances on the canvas, a node's run view
 * and the JSON tree), added once as a constructed style sheet, as the node panel's are.
 */

const CSS = `
.test-bar { border: 0; padding: 0; min-width: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: flex-start; margin: 0.5rem 0; }
.test-bar textarea { font-family: ui-monospace, monospace; font-size: 0.8rem; width: 26rem; height: 3.2rem; }
.test-bar .pinned-problems { color: #9a6700; margin: 0; }
.badge.test-data { background: #fff8c5; color: #7d4e00; border: 1px solid #d4a72c; }
.step-run { display: flex; gap: 0.35rem; align-items: baseline; font-size: 10px; margin-top: 2px; max-width: 200px;
  white-space: nowrap; }
.step-run-status { font-weight: 600; }
.step-run.status-success .step-run-status { color: #1a7f37; }
.step-run.status-failure .step-run-status { color: #cf222e; }
.step-run.status-skipped { opacity: 0.6; }
.step-run.status-skipped .step-run-status { font-style: italic; }
.step-run-output { min-width: 0; flex: 1; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
.node-run { border-top: 1px solid #d0d7de; margin-top: 0.75rem; padding-top: 0.5rem; }
.node-run h3 { font-size: 0.95rem; margin: 0 0 0.25rem; }
.node-run h4 { font-size: 0.85rem; margin: 0.5rem 0 0.25rem; }
.json-tree { overflow: auto; border: 1px solid #d0d7de; border-radius: 4px; background: #f6f8fa;
  font-family: ui-monospace, monospace; font-size: 12px; contain: strict; }
.json-row { display: block; width: 100%; height: 20px; line-height: 20px; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; text-align: left; border: 0; background: none; padding-right: 4px; font: inherit;
  color: inherit; cursor: default; }
button.json-row { cursor: pointer; }
button.json-row:focus-visible { outline: 2px solid #0969da; outline-offset: -2px; }
.json-key { color: #8250df; }
`

let mounted = false

export function mountRunStyle(): void {
  if (mounted || typeof document === 'undefined' || typeof CSSStyleSheet === 'undefined') return
  mounted = true
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(CSS)
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
}
