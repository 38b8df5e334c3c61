/**
 * Templates, their props, tags and apps: every field of the specification, and the bodies of
 * their endpoints (API.md, "Templates", "Tags").
 */
import { type Static, Type as t } from '@sinclair/typebox'
import { Definition, UiMetadata } from './workflow.ts'

const nullable = <T extends import('@sinclair/typebox').TSchema>(schema: T) => t.Union([schema, t.Null()])
const literals = <T extends readonly string[]>(values: T) => t.Union(values.map((v) => t.Literal(v)))

export const TEMPLATE_VISIBILITIES = ['org', 'public'] as const
export type TemplateVisibility = (typeof TEMPLATE_VISIBILITIES)[number]
export const MODERATION_STATUSES = ['pending', 'approved', 'rejected'] as const
export type ModerationStatus = (typeof MODERATION_STATUSES)[number]
export const PROP_TYPES = ['string', 'number', 'integer', 'boolean', 'object'] as const
export const TAG_SCOPES = [
  'all',
  'templates_public',
  'templates_promoted',
  'templates_org',
  'actions',
  'triggers',
  'connectors',
] as const
export type TagScope = (typeof TAG_SCOPES)[number]
export const TEMPLATE_SORTS = ['promoted', 'popular', 'recent', 'name'] as const
export type TemplateSort = (typeof TEMPLATE_SORTS)[number]

export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$'
const Slug = t.String({ minLength: 1, maxLength: 100, pattern: SLUG_PATTERN })

export const CsvColumn = t.Object(
  {
    key: t.String({ minLength: 1, maxLength: 100, pattern: '^(?!(__proto__|constructor|prototype)$)[A-Za-z0-9_-]+$' }),
    name: t.Optional(t.String({ maxLength: 200 })),
    type: t.Optional(literals(['string', 'number', 'integer', 'boolean'] as const)),
    required: t.Optional(t.Boolean()),
    enum: t.Optional(t.Array(t.Any())),
    pattern: t.Optional(t.String({ maxLength: 500 })),
    minimum: t.Optional(t.Number()),
    maximum: t.Optional(t.Number()),
  },
  { additionalProperties: t.Unknown() },
)
export type CsvColumn = Static<typeof CsvColumn>

/** The `properties` of a template prop: the fields the specification names, and any UI hint more. */
export const PropProperties = t.Object(
  {
    inputType: t.Optional(t.String({ maxLength: 100 })),
    enum: t.Optional(t.Array(t.Any(), { maxItems: 1000 })),
    enumLabels: t.Optional(t.Array(t.String())),
    minimum: t.Optional(t.Number()),
    maximum: t.Optional(t.Number()),
    pattern: t.Optional(t.String({ maxLength: 500 })),
    placeholder: t.Optional(t.String()),
    columns: t.Optional(t.Array(CsvColumn, { maxItems: 100 })),
    minRows: t.Optional(t.Integer({ minimum: 0 })),
    maxRows: t.Optional(t.Integer({ minimum: 0 })),
  },
  { additionalProperties: t.Unknown() },
)

export const TemplateProp = t.Object({
  key: t.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^(?!(__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]*$',
  }),
  name: t.String({ maxLength: 200 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  type: literals(PROP_TYPES),
  default: t.Optional(t.Any()),
  required: t.Optional(t.Boolean()),
  sensitive: t.Optional(t.Boolean()),
  properties: t.Optional(PropProperties),
})
export type TemplateProp = Static<typeof TemplateProp>

const contentFields = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  slug: Slug,
  description: t.String({ maxLength: 5000 }),
  tags: t.Array(Slug, { maxItems: 20 }),
  category: t.String({ maxLength: 100 }),
  templateProps: t.Array(TemplateProp, { maxItems: 100 }),
  tableSchemas: t.Record(t.String(), t.Any()),
  uiMetadata: UiMetadata,
  cooldownMs: t.Integer({ minimum: 0 }),
  maxRuns: nullable(t.Integer({ minimum: 1 })),
  definition: Definition,
}

export const CreateTemplateBody = t.Object({
  name: contentFields.name,
  slug: t.Optional(contentFields.slug),
  description: t.Optional(contentFields.description),
  tags: t.Optional(contentFields.tags),
  category: t.Optional(contentFields.category),
  templateProps: t.Optional(contentFields.templateProps),
  tableSchemas: t.Optional(contentFields.tableSchemas),
  uiMetadata: t.Optional(contentFields.uiMetadata),
  cooldownMs: t.Optional(contentFields.cooldownMs),
  maxRuns: t.Optional(contentFields.maxRuns),
  definition: t.Optional(Definition),
  sourceWorkflowId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  visibility: t.Optional(literals(TEMPLATE_VISIBILITIES)),
  generatedAppId: t.Optional(t.String({ maxLength: 64 })),
  generatedAppVersionId: t.Optional(t.String({ maxLength: 64 })),
})
export type CreateTemplateBody = Static<typeof CreateTemplateBody>

/** Every field of a create may change, but the source (a template keeps the workflow it came from); the app link may be cleared with null. */
export const UpdateTemplateBody = t.Composite([
  t.Partial(t.Omit(CreateTemplateBody, ['sourceWorkflowId', 'generatedAppId', 'generatedAppVersionId'])),
  t.Object({
    generatedAppId: t.Optional(nullable(t.String({ maxLength: 64 }))),
    generatedAppVersionId: t.Optional(nullable(t.String({ maxLength: 64 }))),
  }),
])
export type UpdateTemplateBody = Static<typeof UpdateTemplateBody>

/** What a version holds. */
export interface TemplateContent {
  name: string
  description: string
  tags: string[]
  category: string
  templateProps: TemplateProp[]
  tableSchemas: Record<string, unknown>
  uiMetadata: Static<typeof UiMetadata>
  cooldownMs: number
  maxRuns: number | null
  definition: Definition
}

export const ForkBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  propValues: t.Optional(t.Record(t.String(), t.Any())),
  connectors: t.Optional(t.Record(t.String(), t.String({ minLength: 1, maxLength: 64 }))),
})
export type ForkBody = Static<typeof ForkBody>

export const Tag = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String(),
    description: t.String(),
    imageUrl: t.String(),
    categories: t.Array(t.String()),
    count: t.Integer(),
    weight: t.Integer(),
    promotedTemplateCount: t.Integer(),
    publicTemplateCount: t.Integer(),
    createdAt: t.String(),
    updatedAt: t.String(),
    interested: t.Optional(t.Boolean()),
  },
  { $id: 'Tag' },
)
export type Tag = Static<typeof Tag>

export const TagBody = t.Object({
  slug: Slug,
  name: t.String({ minLength: 1, maxLength: 100 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  imageUrl: t.Optional(t.String({ maxLength: 2000 })),
  categories: t.Optional(t.Array(t.String({ minLength: 1, maxLength: 100 }), { maxItems: 20 })),
  weight: t.Optional(t.Integer({ minimum: -1000000, maximum: 1000000 })),
})
export const UpdateTagBody = t.Partial(TagBody)

export const Template = t.Object(
  {
    id: t.String(),
    name: t.String(),
    slug: t.String(),
    description: t.String(),
    archived: t.Boolean(),
    category: t.String(),
    cooldownMs: t.Integer(),
    maxRuns: nullable(t.Integer()),
    createdAt: t.String(),
    createdBy: t.String(),
    updatedAt: t.String(),
    updatedBy: t.String(),
    definition: t.Record(t.String(), t.Any()),
    forkCount: t.Integer(),
    generatedAppId: t.String(),
    generatedAppVersionId: t.String(),
    isPromoted: t.Boolean(),
    promotedAt: t.String(),
    promotedBy: t.String(),
    promotedOrder: nullable(t.Integer()),
    moderationStatus: literals(MODERATION_STATUSES),
    rejectionReason: t.String(),
    reviewedAt: t.String(),
    reviewedBy: t.String(),
    submittedAt: t.String(),
    organizationId: t.String(),
    organizationName: t.String(),
    organizationDescription: t.String(),
    organizationPhoto: t.String(),
    sourceWorkflowId: t.String(),
    tableSchemas: t.Record(t.String(), t.Any()),
    tags: t.Array(Tag),
    templateProps: t.Array(TemplateProp),
    uiMetadata: t.Record(t.String(), t.Any()),
    version: t.Integer(),
    visibility: literals(TEMPLATE_VISIBILITIES),
  },
  { $id: 'Template' },
)
export type Template = Static<typeof Template>

export const AppBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  files: t.Record(t.String({ minLength: 1, maxLength: 300 }), t.String(), { maxProperties: 500 }),
})
export const UpdateAppBody = t.Object({
  name: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
  files: t.Optional(t.Record(t.String({ minLength: 1, maxLength: 300 }), t.String(), { maxProperties: 500 })),
})
export const AppLinkBody = t.Object({
  appId: nullable(t.String({ minLength: 1, maxLength: 64 })),
  version: t.Optional(t.Integer({ minimum: 1 })),
})

/** A slug from a name: lower case words joined by hyphens. */
export function slugify(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
  return slug || 'template'
}
