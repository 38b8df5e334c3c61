/**
 * Tags of templates and of the catalog: their records with counts per scope, the interests a
 * person follows, and the tag operations (listing, and the operator's create, update, delete).
 *
 * Counts are kept a moment: template counts per organization are answered from the last count
 * and counted again in the background once two seconds old; tag rows are read again at most every
 * two seconds. A template or tag written through this process (`changed`) makes the next tag
 * listing count again at once, so that a writer reads its own change.
 */
import { BoundedMap } from '../bounded-map.ts'
import type { Tag, TagScope } from '../domain/template.ts'
import { badRequest, conflict, notFound } from '../errors.ts'
import type { Catalog } from '../plugin/catalog.ts'
import type { Clock } from '../ports/clock.ts'
import type { Store } from '../ports/store.ts'
import { timingSafeEqual } from '../security/hash.ts'
import { type TagRow, tags, templates } from '../store/templates.ts'
import { users } from '../store/users.ts'
import { iso } from '../time.ts'
import { type Principal, requirePermission } from './auth.ts'
import type { TemplateContext } from './template-context.ts'

export interface TagListQuery {
  category?: string
  search?: string
  limit: number
  offset: number
  sortByCount?: boolean
  scope?: TagScope
  paginationBypassKey?: string
}

type TemplateCounts = Map<string, { public: number; promoted: number; org: number }>

export interface TagIndex {
  /** Tag records of every slug known (or of `only`), counted for `scope`; `fresh`: counted again after a write here. */
  records(organizationId: string, scope: TagScope, fresh?: boolean, only?: ReadonlySet<string>): Promise<Tag[]>
  /** The slugs of the tag table and of the catalog. */
  knownSlugs(): Promise<Set<string>>
  /** The names of tags, by slug (the slug when it has no row). */
  names(slugs: readonly string[]): Promise<string[]>
  /** The interest tags of a person whose switch is on; null when off (or not a person). */
  interestsOf(caller: Principal): Promise<string[] | null>
  /** A template or tag was written here. */
  changed(): void
}

export function createTagIndex(deps: { store: Store; clock: Clock; catalog: Catalog }): TagIndex {
  const { store, clock } = deps

  /** Catalog tag counts per slug, by kind: fixed for the life of the process. */
  const catalogCounts = new Map<string, { actions: number; triggers: number; connectors: number }>()
  const countOf = (slug: string) => {
    let c = catalogCounts.get(slug)
    if (!c) catalogCounts.set(slug, (c = { actions: 0, triggers: 0, connectors: 0 }))
    return c
  }
  for (const e of deps.catalog.actions) for (const tag of e.tags) countOf(tag).actions++
  for (const e of deps.catalog.triggers) for (const tag of e.tags) countOf(tag).triggers++
  for (const e of deps.catalog.connectorTypes) for (const tag of e.tags) countOf(tag).connectors++

  /** Template counts per tag for an organization, kept a moment (listings ask on every call). */
  const countCache = new BoundedMap<string, { at: number; readAt: number; counts: TemplateCounts }>(1000)
  const counting = new Map<string, Promise<TemplateCounts>>()
  let writes = 0

  /**
   * The last count, refreshed in the background once two seconds old, so that no answer waits for
   * a count of every template. `fresh` (tag listings): counted again at once after a template or
   * tag write of this process.
   */
  async function templateCounts(organizationId: string, fresh = true): Promise<TemplateCounts> {
    const cached = countCache.get(organizationId)
    if (cached && (cached.at === writes || !fresh)) {
      // Answered from what was counted last; counted again meanwhile, off the request's path.
      if (clock.now() - cached.readAt >= 2000) void recount(organizationId).catch(() => {})
      return cached.counts
    }
    return recount(organizationId)
  }

  function recount(organizationId: string): Promise<TemplateCounts> {
    // One count at a time per organization: concurrent answers share it.
    const key = `${organizationId}@${writes}`
    let pending = counting.get(key)
    if (!pending) {
      const at = writes
      pending = tags
        .counts(store, organizationId)
        .then((rows) => {
          const counts: TemplateCounts = new Map()
          for (const r of rows)
            counts.set(r.slug, {
              public: Number(r.public_count),
              promoted: Number(r.promoted_count),
              org: Number(r.org_count),
            })
          countCache.set(organizationId, { at, counts, readAt: clock.now() })
          return counts
        })
        .finally(() => counting.delete(key))
      counting.set(key, pending)
    }
    return pending
  }

  /** Tag rows, read again after a tag write here and at most two seconds old otherwise. */
  let tagRows: { at: number; readAt: number; bySlug: Map<string, TagRow> } | null = null
  async function tagsBySlug(): Promise<Map<string, TagRow>> {
    if (tagRows && tagRows.at === writes && clock.now() - tagRows.readAt < 2000) return tagRows.bySlug
    const at = writes
    const bySlug = new Map<string, TagRow>((await tags.all(store)).map((r) => [r.slug, r]))
    tagRows = { at, readAt: clock.now(), bySlug }
    return bySlug
  }

  async function records(
    organizationId: string,
    scope: TagScope,
    fresh = true,
    only?: ReadonlySet<string>,
  ): Promise<Tag[]> {
    const bySlug = await tagsBySlug()
    const counts = await templateCounts(organizationId, fresh)
    const slugs = only ?? new Set<string>([...bySlug.keys(), ...catalogCounts.keys(), ...counts.keys()])
    const out: Tag[] = []
    for (const slug of slugs) {
      const r = bySlug.get(slug)
      const t = counts.get(slug) ?? { public: 0, promoted: 0, org: 0 }
      const c = catalogCounts.get(slug) ?? { actions: 0, triggers: 0, connectors: 0 }
      const byScope: Record<TagScope, number> = {
        templates_public: t.public,
        templates_promoted: t.promoted,
        templates_org: t.org,
        actions: c.actions,
        triggers: c.triggers,
        connectors: c.connectors,
        all: t.public + t.org + c.actions + c.triggers + c.connectors,
      }
      out.push({
        id: r?.id ?? '',
        slug,
        name: r?.name ?? slug,
        description: r?.description ?? '',
        imageUrl: r?.image_url ?? '',
        categories: r ? (JSON.parse(r.categories) as string[]) : [],
        count: byScope[scope],
        weight: r?.weight ?? 0,
        promotedTemplateCount: t.promoted,
        publicTemplateCount: t.public,
        createdAt: r ? iso(r.created_at) : '',
        updatedAt: r ? iso(r.updated_at) : '',
      })
    }
    return out
  }

  return {
    records,
    knownSlugs: async () => new Set([...(await tags.slugs(store)), ...catalogCounts.keys()]),
    async names(slugs) {
      const rows = await tagsBySlug()
      return slugs.map((s) => rows.get(s)?.name ?? s)
    },
    async interestsOf(caller) {
      if (!caller.userId) return null
      const user = await users.byId(store, caller.userId)
      if (!user || user.interests_enabled !== 1) return null
      return JSON.parse(user.interest_tags) as string[]
    },
    changed: () => {
      writes++
    },
  }
}

/** A limit above 1000 needs the installation's pagination bypass key; a wrong key is refused even below. */
function checkBypass(query: TagListQuery, configured: string | null) {
  const valid = (key: string | undefined) => !!key && !!configured && timingSafeEqual(key, configured)
  if (query.limit > 1000) {
    if (!valid(query.paginationBypassKey)) {
      throw badRequest('limit above 1000 needs a valid pagination_bypass_key', [
        { path: '/limit', in: 'query', message: 'must be at most 1000 without pagination_bypass_key' },
      ])
    }
    if (query.limit > 10_000)
      throw badRequest('limit must be at most 10000', [
        { path: '/limit', in: 'query', message: 'must be at most 10000' },
      ])
  } else if (query.paginationBypassKey !== undefined && !valid(query.paginationBypassKey)) {
    throw badRequest('wrong pagination_bypass_key', [
      { path: '/pagination_bypass_key', in: 'query', message: 'not the configured key' },
    ])
  }
}

type TagBody = {
  slug: string
  name: string
  description?: string
  imageUrl?: string
  categories?: string[]
  weight?: number
}

/** The tag operations of the template service. */
export function tagOperations({ deps, tagIndex }: TemplateContext) {
  const { store, clock } = deps
  const requireModerator = (caller: Principal) => requirePermission(caller, 'template:moderate')
  const recordOf = async (caller: Principal, id: string) =>
    (await tagIndex.records(caller.organizationId, 'all')).find((t) => t.id === id)!

  return {
    async listTags(caller: Principal, query: TagListQuery) {
      checkBypass(query, deps.paginationBypassKey)
      let list = await tagIndex.records(caller.organizationId, query.scope ?? 'all')
      if (query.category) list = list.filter((t) => t.categories.includes(query.category!))
      if (query.search) {
        const q = query.search.toLowerCase()
        list = list.filter((t) => `${t.name} ${t.description}`.toLowerCase().includes(q))
      }
      list.sort(
        query.sortByCount
          ? (a, b) => b.count - a.count || b.weight - a.weight || a.name.localeCompare(b.name)
          : (a, b) => b.weight - a.weight || a.name.localeCompare(b.name) || a.slug.localeCompare(b.slug),
      )
      const interests = await tagIndex.interestsOf(caller)
      const page = list.slice(query.offset, query.offset + query.limit)
      const items = interests ? page.map((t) => ({ ...t, interested: interests.includes(t.slug) })) : page
      return { hasMore: list.length > query.offset + query.limit, items, limit: query.limit, offset: query.offset }
    },

    async createTag(caller: Principal, body: TagBody): Promise<Tag> {
      requireModerator(caller)
      const at = clock.now()
      const id = deps.ids.next('tag')
      await store.write(async (tx) => {
        if (await tags.bySlug(tx, body.slug))
          throw conflict(`the tag ${body.slug} exists`, [{ path: '/slug', message: 'taken' }])
        await tags.insert(tx, {
          id,
          slug: body.slug,
          name: body.name,
          description: body.description ?? '',
          image_url: body.imageUrl ?? '',
          categories: JSON.stringify(body.categories ?? []),
          weight: body.weight ?? 0,
          created_at: at,
          updated_at: at,
        })
      })
      tagIndex.changed()
      return recordOf(caller, id)
    },

    async updateTag(caller: Principal, id: string, body: Partial<TagBody>): Promise<Tag> {
      requireModerator(caller)
      await store.write(async (tx) => {
        const row = await tags.byId(tx, id)
        if (!row) throw notFound('tag')
        if (body.slug && body.slug !== row.slug) {
          if (await tags.bySlug(tx, body.slug))
            throw conflict(`the tag ${body.slug} exists`, [{ path: '/slug', message: 'taken' }])
          if (await templates.tagInUse(tx, row.slug)) {
            throw conflict('templates carry this tag: its slug cannot change', [{ path: '/slug', message: 'in use' }])
          }
        }
        await tags.update(tx, {
          ...row,
          slug: body.slug ?? row.slug,
          name: body.name ?? row.name,
          description: body.description ?? row.description,
          image_url: body.imageUrl ?? row.image_url,
          categories: body.categories ? JSON.stringify(body.categories) : row.categories,
          weight: body.weight ?? row.weight,
          updated_at: clock.now(),
        })
      })
      tagIndex.changed()
      return recordOf(caller, id)
    },

    async deleteTag(caller: Principal, id: string) {
      requireModerator(caller)
      const changedRows = await store.write((tx) => tags.remove(tx, id))
      if (changedRows === 0) throw notFound('tag')
      tagIndex.changed()
      return { id, deleted: true as const }
    },
  }
}
