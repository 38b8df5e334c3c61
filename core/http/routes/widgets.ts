/** The public widget page of a workflow (`/w/{workflowId}/`): its app's files, or a built-in page. */
import { Elysia } from 'elysia'
import type { AppService } from '../../services/apps.ts'
import { doc } from '../docs.ts'
import { t } from '../schemas.ts'

const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json; charset=utf-8',
  svg: 'image/svg+xml',
  txt: 'text/plain; charset=utf-8',
  md: 'text/plain; charset=utf-8',
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** The built-in widget page: title, description, an amount within bounds, and a button that starts a public run. */
function builtInWidget(workflowId: string, name: string, config: Record<string, unknown>): string {
  const title = escapeHtml(String(config.title ?? name))
  const description = escapeHtml(String(config.description ?? ''))
  const button = escapeHtml(String(config.buttonLabel ?? 'Run'))
  const min = typeof config.minAmount === 'string' ? config.minAmount : null
  const max = typeof config.maxAmount === 'string' ? config.maxAmount : null
  const amount =
    min !== null || max !== null
      ? `<label>Amount <input id="amount" type="number" inputmode="numeric" step="1"${min !== null ? ` min="${escapeHtml(min)}"` : ''}${max !== null ? ` max="${escapeHtml(max)}"` : ''} required></label>`
      : ''
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1b1b1f}label{display:block;margin:1rem 0}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}button{font:inherit;padding:.6rem 1.2rem}#out{margin-top:1rem;white-space:pre-wrap}</style></head>
<body><h1>${title}</h1><p>${description}</p><form id="f">${amount}<button type="submit">${button}</button></form><p id="out" role="status"></p>
<script>
const f = document.getElementById('f'), out = document.getElementById('out'), amount = document.getElementById('amount')
f.addEventListener('submit', async (e) => {
  e.preventDefault()
  if (amount && !amount.checkValidity()) { out.textContent = amount.validationMessage; return }
  out.textContent = 'Starting…'
  const r = await fetch(${JSON.stringify(`/v1/public/workflows/${workflowId}/run`)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ payload: amount ? { amount: amount.value } : {} }) })
  const body = await r.json().catch(() => ({}))
  out.textContent = r.ok ? 'Started run ' + body.data.runId : (body.message || 'Failed: ' + r.status)
})
</script></body></html>`
}

/** `/w/{workflowId}/…`: the widget page of a workflow with publicWidgetConfig.enabled, without a key. */
export function widgetRoutes(apps: AppService) {
  const serve = async (workflowId: string, path: string) => {
    const widget = await apps.widget(workflowId)
    const notFoundPage = new Response('not found', {
      status: 404,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    })
    if (!widget) return notFoundPage
    if (!widget.files) {
      if (path !== '' && path !== 'index.html') return notFoundPage
      return new Response(builtInWidget(workflowId, widget.name, widget.config), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
          'content-security-policy':
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
        },
      })
    }
    const file = path === '' ? 'index.html' : path
    const text = Object.hasOwn(widget.files, file) ? widget.files[file] : undefined
    if (text === undefined) return notFoundPage
    const ext = file.slice(file.lastIndexOf('.') + 1).toLowerCase()
    return new Response(text, {
      headers: {
        'content-type': CONTENT_TYPES[ext] ?? 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        // An organization's app runs in a sandbox: an origin of its own, so it can never act
        // with a signed-in person's cookie on this server. It may call the public run endpoint.
        'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups; frame-ancestors *',
      },
    })
  }
  return new Elysia({ name: 'routes.widgets' }).get(
    '/w/*',
    ({ params, request }) => {
      const rest = params['*'] ?? ''
      const slash = rest.indexOf('/')
      const workflowId = decodeURIComponent(slash < 0 ? rest : rest.slice(0, slash))
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(workflowId))
        return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } })
      // The page's relative links need the trailing slash.
      if (slash < 0)
        return new Response(null, { status: 302, headers: { location: `${new URL(request.url).pathname}/` } })
      return serve(workflowId, rest.slice(slash + 1))
    },
    {
      params: t.Object({ '*': t.String({ maxLength: 400 }) }),
      detail: doc({
        summary:
          "The public widget page of a workflow with publicWidgetConfig.enabled (/w/{workflowId}/), and its app's files",
        description:
          "No key. The app attached to the workflow (PUT /v1/workflows/{id}/app), or a built-in page with the widget's title, description, amount and button, which starts a public run.",
        tags: ['apps'],
        produces: 'text/html',
        errors: [404],
      }),
    },
  )
}
