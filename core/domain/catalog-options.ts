/**
 * Dynamic options: the body and answer of `POST /v1/catalog/{triggers|actions}/{type}/options`,
 * which asks a plugin for the allowed values of one payload field (docs/plugins.md).
 */
import { type Static, Type as t } from '@sinclair/typebox'

const Value = t.Union([t.String(), t.Number(), t.Boolean()])

export const OptionsBody = t.Object({
  field: t.String({ minLength: 1, maxLength: 100, description: 'the payload field whose values to list' }),
  connectorId: t.Optional(
    t.String({ minLength: 1, maxLength: 100, description: 'the connector the node will use; needs connector:read' }),
  ),
  values: t.Optional(
    t.Record(t.String(), t.Any(), {
      description: "the payload's current values; the field's own value is the selection to report on",
    }),
  ),
  search: t.Optional(t.String({ maxLength: 200, description: 'what the person typed; the plugin filters' })),
  cursor: t.Optional(t.String({ maxLength: 2000, description: 'nextCursor of the previous page' })),
})
export type OptionsBody = Static<typeof OptionsBody>

export const OptionsAnswer = t.Object(
  {
    items: t.Array(t.Object({ label: t.String(), value: Value })),
    nextCursor: t.String({ description: 'send back as cursor for the next page; "": the last page' }),
    selected: t.Union(
      [
        t.Object({
          value: t.Any({ description: 'values[field] as sent' }),
          offered: t.Boolean({
            description:
              'whether the value is among the items of the pages of this list loaded so far (this page, and those before it since the first page was last loaded); an array is offered when each of its elements is',
          }),
        }),
        t.Null(),
      ],
      { description: 'null when values[field] is not set' },
    ),
  },
  { $id: 'OptionsAnswer' },
)
export type OptionsAnswer = Static<typeof OptionsAnswer>
