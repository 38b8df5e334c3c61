/**
 * Templates: a gallery by tag and search (both in the URL), a template's page with its graph,
 * and a fork form generated from its templateProps.
 */
import { useState } from 'preact/hooks'
import { api, ApiError } from '../api.ts'
import { Graph } from '../graph.tsx'
import { location, navigate, setFilter } from '../router.ts'
import { ErrorBox, Page, useLoad } from '../ui.tsx'
import { PropsForm, type TemplateProp } from '../props-form.tsx'

export function Templates() {
  const query = location.value.query
  const search = query.get('search') ?? ''
  const tag = query.get('tag') ?? ''
  const list = useLoad(() => {
    const q = new URLSearchParams({ limit: '60' })
    if (search) q.set('search', search)
    if (tag) q.set('tags', tag)
    return api<{ items: any[] }>('GET', `/v1/templates?${q}`)
  }, [search, tag])
  const set = (key: string, value: string) => setFilter(key, value)
  const tags = new Map<string, string>()
  for (const t of list.data?.items ?? []) for (const g of t.tags ?? []) tags.set(g.slug, g.name || g.slug)
  return (
    <Page title="Templates">
      <div class="filters">
        <input
          type="search"
          placeholder="Search templates"
          value={search}
          onChange={(e) => set('search', (e.target as HTMLInputElement).value)}
          aria-label="search"
        />
        {tag ? (
          <button type="button" class="chip on" onClick={() => set('tag', '')}>
            {tag} ✕
          </button>
        ) : null}
      </div>
      <ErrorBox error={list.error} />
      <div class="gallery">
        {(list.data?.items ?? []).map((t) => (
          <article class="card template" data-template={t.id}>
            <h3>
              <a href={`/templates/${t.id}`}>{t.name}</a>
            </h3>
            <p>{t.description}</p>
            <div class="chips">
              {(t.tags ?? []).map((g: any) => (
                <a class="chip" href={`/templates?tag=${encodeURIComponent(g.slug)}`}>
                  {g.name || g.slug}
                </a>
              ))}
            </div>
          </article>
        ))}
      </div>
      {list.data && list.data.items.length === 0 ? (
        <p class="empty">
          No templates match. Clear the tag or the search: your organization's templates and approved public ones show
          here.
        </p>
      ) : null}
      {!tag && tags.size ? (
        <p class="muted">
          Tags:{' '}
          {[...tags].map(([slug, name]) => (
            <a class="chip" href={`/templates?tag=${encodeURIComponent(slug)}`}>
              {name}
            </a>
          ))}
        </p>
      ) : null}
    </Page>
  )
}

export function TemplatePage({ id }: { id: string }) {
  const template = useLoad(() => api('GET', `/v1/templates/${id}`), [id])
  const [name, setName] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const t = template.data
  if (template.error)
    return (
      <Page title="Template">
        <ErrorBox error={template.error} />
      </Page>
    )
  if (!t)
    return (
      <Page title="Template">
        <p>Loading…</p>
      </Page>
    )
  const fork = async (values: Record<string, unknown>) => {
    setError(null)
    setFieldErrors({})
    try {
      const forked = await api('POST', `/v1/templates/${id}/fork`, { name: name || undefined, propValues: values })
      navigate(`/workflows/${forked.workflow.id}`)
    } catch (e) {
      setError(e)
      if (e instanceof ApiError) {
        const byProp: Record<string, string> = {}
        for (const d of e.details) {
          const [, key, column, row] = /^\/propValues\/([^/]+)(?:\/([^/]+)\/(\d+))?/.exec(d.path ?? '') ?? []
          if (!key) continue
          const said = column ? `${column}, row ${Number(row) + 1}: ${d.message}` : d.message
          byProp[key] = byProp[key] ? `${byProp[key]}; ${said}` : said
        }
        setFieldErrors(byProp)
      }
    }
  }
  return (
    <Page title={t.name}>
      <p>{t.description}</p>
      <div class="chips">
        {(t.tags ?? []).map((g: any) => (
          <a class="chip" href={`/templates?tag=${encodeURIComponent(g.slug)}`}>
            {g.name || g.slug}
          </a>
        ))}
      </div>
      {t.definition?.nodes ? (
        <div class="graph-box">
          <Graph definition={t.definition as any} />
        </div>
      ) : null}
      <h2>Fork into a workflow</h2>
      <label>
        Workflow name{' '}
        <input
          name="fork-name"
          placeholder={t.name}
          value={name}
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
        />
      </label>
      <PropsForm
        props={(t.templateProps ?? []) as TemplateProp[]}
        errors={fieldErrors}
        onSubmit={fork}
        submitLabel="Fork"
      />
      <ErrorBox error={error} />
    </Page>
  )
}
