import { defineTrigger, TriggerEvent, Type } from '../../../core/plugin/sdk.ts'

const SEVERITIES = ['low', 'medium', 'high'] as const
const Severity = Type.Union(SEVERITIES.map((s) => Type.Literal(s)))
const AssetClass = Type.Union([Type.Literal('equity'), Type.Literal('crypto'), Type.Literal('index')])

/** A watched market situation fires for a ticker of the situation universe (GET /v1/situation/universe). */
export const situationFired = defineTrigger({
  type: 'situation-fired',
  name: 'Situation fired',
  description: 'A market situation (a pattern watched over the ticker universe) fires for a ticker.',
  tags: ['generic', 'markets', 'situation'],
  platform: 'situation',
  connector: null,
  payload: Type.Object({
    situationIds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'default any situation' })),
    tickers: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: 'default any ticker' })),
    assetClass: Type.Optional(AssetClass),
    minSeverity: Type.Optional(Severity),
  }),
  result: TriggerEvent(
    Type.Object({
      situationId: Type.String(),
      name: Type.String(),
      ticker: Type.String(),
      assetClass: AssetClass,
      severity: Severity,
      summary: Type.String(),
      firedAt: Type.String({ format: 'date-time' }),
      data: Type.Optional(Type.Record(Type.String(), Type.Any())),
    }),
  ),
  waitPayload: Type.Object({ situationId: Type.Optional(Type.String()), ticker: Type.Optional(Type.String()) }),
  matches: (config, { body }) =>
    (!config.situationIds?.length || config.situationIds.includes(body.situationId)) &&
    (!config.tickers?.length || config.tickers.some((t) => t.toUpperCase() === body.ticker.toUpperCase())) &&
    (config.assetClass === undefined || config.assetClass === body.assetClass) &&
    SEVERITIES.indexOf(body.severity) >= SEVERITIES.indexOf(config.minSeverity ?? 'low'),
})
