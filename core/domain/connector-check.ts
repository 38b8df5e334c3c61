/**
 * A connector check's answer (the connector type's `test`), and the connector as created or
 * changed with the check's answer beside it.
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { Connector } from './connector.ts'

export const ConnectorCheck = t.Object(
  {
    ok: t.Boolean({ description: 'whether the data reached the platform' }),
    message: t.Optional(t.String({ description: "the check's explanation, as the plugin wrote it" })),
  },
  { $id: 'ConnectorCheck' },
)
export type ConnectorCheck = Static<typeof ConnectorCheck>

export const CheckedConnector = t.Composite(
  [
    Connector,
    t.Object({
      test: t.Optional(
        t.Union([ConnectorCheck, t.Null()], {
          description:
            "the connector type's check, run after the save (the connector is saved whatever it answers); absent when the type has none",
        }),
      ),
    }),
  ],
  { $id: 'CheckedConnector' },
)
export type CheckedConnector = Static<typeof CheckedConnector>
