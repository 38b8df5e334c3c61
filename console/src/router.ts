/** A small history router: the path and the query are signals, so a view can be shared by its URL. */
import { signal } from '@preact/signals'

export const location = signal({ path: window.location.pathname, query: new URLSearchParams(window.location.search) })

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to)
  else history.pushState(null, '', to)
  location.value = { path: window.location.pathname, query: new URLSearchParams(window.location.search) }
}

window.addEventListener('popstate', () => {
  location.value = { path: window.location.pathname, query: new URLSearchParams(window.location.search) }
})

/**
 * Sets one filter of the current page's URL (an empty value removes it), so that a view can be
 * shared and Back returns to the previous one. Changing a filter drops `offset`.
 */
export function setFilter(key: string, value: string, replace = false): void {
  const q = new URLSearchParams(location.value.query)
  if (value) q.set(key, value)
  else q.delete(key)
  if (key !== 'offset') q.delete('offset')
  navigate(`${location.value.path}${q.size ? `?${q}` : ''}`, replace)
}

/** Follows same-origin links without reloading the page. */
document.addEventListener('click', (event) => {
  const a = (event.target as Element | null)?.closest?.('a')
  if (
    !a ||
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    a.target
  )
    return
  const url = new URL(a.href, window.location.href)
  if (url.origin !== window.location.origin || url.pathname.startsWith('/v1/')) return
  event.preventDefault()
  navigate(url.pathname + url.search)
})

/** Matches `/runs/:id` style patterns; answers the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/')
  const s = path.split('/')
  if (p.length !== s.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < p.length; i++) {
    // Ids are letters, digits, _ and -: nothing that could reach another API path.
    if (p[i].startsWith(':')) {
      if (!/^[A-Za-z0-9_-]{1,100}$/.test(s[i])) return null
      params[p[i].slice(1)] = s[i]
    } else if (p[i] !== s[i]) return null
  }
  return params
}
