/**
 * The palette: every trigger and action of the catalog, searchable, grouped by platform. An entry
 * is dragged onto the canvas (or onto an edge), or chosen with the keyboard: Enter adds it after
 * the selected node, or on the selected edge.
 */
import { useMemo, useState } from 'preact/hooks'
import type { Entry } from './io.ts'

const groupOf = (entry: Entry) =>
  entry.trigger ? `${entry.platform || 'generic'} triggers` : entry.plugin || 'actions'

export function Palette({ entries, onPick }: { entries: Entry[]; onPick(type: string): void }) {
  const [search, setSearch] = useState('')
  const groups = useMemo(() => {
    const words = search.toLowerCase().split(/\s+/).filter(Boolean)
    const found = entries.filter((e) => {
      const text = `${e.type} ${e.name} ${e.description ?? ''} ${(e.tags ?? []).join(' ')}`.toLowerCase()
      return words.every((w) => text.includes(w))
    })
    const byGroup = new Map<string, Entry[]>()
    for (const entry of found) byGroup.set(groupOf(entry), [...(byGroup.get(groupOf(entry)) ?? []), entry])
    return [...byGroup.entries()].sort(([a], [b]) => a.localeCompare(b))
  }, [entries, search])
  const first = groups[0]?.[1][0]
  return (
    <aside class="palette" aria-label="node palette">
      <h2 class="palette-heading">Triggers and actions</h2>
      <input
        type="search"
        placeholder="Search triggers and actions"
        aria-label="Search triggers and actions"
        data-testid="palette-search"
        value={search}
        onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && first) onPick(first.type)
        }}
      />
      <div class="palette-list">
        {groups.map(([group, items]) => (
          <section key={group}>
            <h3>{group}</h3>
            {items.map((entry) => (
              <button
                key={entry.type}
                type="button"
                class="palette-item"
                draggable
                data-testid={`palette:${entry.type}`}
                title={entry.description}
                onDragStart={(e) => e.dataTransfer?.setData('application/x-automaton-type', entry.type)}
                onClick={() => onPick(entry.type)}
              >
                <span>{entry.name}</span> <small>{entry.type}</small>
              </button>
            ))}
          </section>
        ))}
        {groups.length === 0 ? <p class="hint">Nothing matches “{search}”.</p> : null}
      </div>
    </aside>
  )
}
