/** A list page's table of rows, and the note that stands in for the rows while there are none. */
import type { ComponentChildren } from 'preact'

/** A list's table: one header cell for each heading ('' over a column of buttons), then the rows given as children. */
export function ListTable({
  heads,
  class: className = 'list',
  children,
}: {
  heads: string[]
  class?: string
  children: ComponentChildren
}) {
  return (
    <table class={className}>
      <thead>
        <tr>
          {heads.map((head) => (
            <th>{head || null}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  )
}

/** Says what to do about an empty list, once the list has loaded and is empty. */
export function EmptyNote({ items, children }: { items: unknown[] | undefined; children: ComponentChildren }) {
  return items && items.length === 0 ? <p class="empty">{children}</p> : null
}
