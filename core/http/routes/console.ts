/**
 * The web console, served by the API's own process at `/` (the API stays under `/v1`). Its
 * script and style are built by `console/build.ts` (`npm start` and `npm test` build them first)
 * and carried inside the single binary; nothing is fetched from elsewhere. Every console path
 * answers the same page, which routes in the browser and talks to `/v1` with the session cookie.
 */
import { Elysia } from 'elysia'
import { doc } from '../docs.ts'

interface Assets {
  script: string
  style: string
  version: string
  /** The editor's chunks by file name, loaded by the script when a workflow is opened. */
  chunks: Record<string, string>
}

/** The console's pages: deep links to them answer the console. */
const PAGES = [
  '/',
  '/signin',
  '/workflows',
  '/workflows/:id',
  '/runs',
  '/runs/:id',
  '/templates',
  '/templates/:id',
  '/keys',
  '/hooks',
  '/events',
  '/connectors',
  '/people',
  '/settings',
  '/moderation',
  '/agents',
  '/x402',
]

/** The page runs only the script its own nonce names: nothing else served from this origin (an app's file under /w/) can run in it. */
const policy = (nonce: string) =>
  `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'self' 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`

const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
}

async function loadAssets(): Promise<Assets | null> {
  try {
    // Literal paths, so that the single binary carries the files; they exist once the console is built.
    const [script, style, chunks] = await Promise.all([
      // @ts-ignore -- a built file, imported as text
      import('../../../console/dist/app.js', { with: { type: 'text' } }),
      // @ts-ignore -- a built file, imported as text
      import('../../../console/dist/app.css', { with: { type: 'text' } }),
      // @ts-ignore -- a built file listing the chunks through literal imports
      import('../../../console/dist/chunks.js').catch(() => ({ default: {} })),
    ])
    const text = { script: script.default as unknown as string, style: style.default as unknown as string }
    // The assets are cached for good under a name that changes whenever their content does.
    const digest = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text.script + text.style)),
    )
    return {
      ...text,
      chunks: chunks.default as Record<string, string>,
      version: [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, '0')).join(''),
    }
  } catch {
    return null
  }
}

function page(version: string, nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Automaton</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app.css?v=${version}">
<script type="module" nonce="${nonce}" src="/console/app.js?v=${version}"></script>
</head>
<body><div id="app"></div></body>
</html>
`
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Automaton</title>
<p>The console is not built in this copy. Run <code>npm run build:console</code> (npm start and npm test do it), or use the API under <code>/v1</code>.</p>`

export function consoleRoutes() {
  const assets = loadAssets()
  const answer = async (kind: 'page' | 'script' | 'style', chunk?: string) => {
    const built = await assets
    if (!built)
      return new Response(NOT_BUILT, {
        status: 503,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': policy('none'),
          ...SECURITY_HEADERS,
        },
      })
    if (kind === 'page') {
      const nonce = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))))
      return new Response(page(built.version, nonce), {
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': policy(nonce),
          ...SECURITY_HEADERS,
        },
      })
    }
    const type = kind === 'script' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8'
    const body =
      kind === 'style'
        ? built.style
        : chunk === undefined
          ? built.script
          : Object.hasOwn(built.chunks, chunk)
            ? built.chunks[chunk]
            : null
    if (body === null) return new Response('Not found', { status: 404 })
    return new Response(body, {
      headers: {
        'content-type': type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      },
    })
  }
  const hidden = { detail: doc({ summary: 'The web console', tags: ['console'], hide: true }) }
  const routes = new Elysia({ name: 'routes.console' })
    .get('/console/app.js', () => answer('script'), hidden)
    .get('/console/app.css', () => answer('style'), hidden)
    .get('/console/:chunk', ({ params }) => answer('script', params.chunk), hidden)
  for (const path of PAGES) routes.get(path, () => answer('page'), hidden)
  return routes
}
