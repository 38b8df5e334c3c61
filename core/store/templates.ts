/**
 * Rows of templates, their versions, tags and moderation log, and of tags and apps.
 *
 * The version a caller sees: their own organization's templates at the current version, other
 * organizations' public templates at the last approved one (`public_version`). Listings, tag
 * filters, search and tag counts all join that version.
 *
 * `templates` is one repository made of a file per concern: the records (template-records.ts),
 * their versions and tags (template-versions.ts), reading as a caller sees them
 * (template-listing.ts) and the moderation log (template-moderation.ts). Tags are tags.ts and apps
 * apps.ts.
 */
import { templateListing } from './template-listing.ts'
import { templateModeration } from './template-moderation.ts'
import { templateRecords } from './template-records.ts'
import { templateVersions } from './template-versions.ts'

export { type AppRow, type AppVersionRow, apps } from './apps.ts'
export { type TagRow, tags } from './tags.ts'
export { globLiteral, likeLiteral, type TemplateFilter } from './template-listing.ts'
export type { ShownTemplateRow, TemplateRow } from './template-records.ts'

export const templates = {
  ...templateRecords,
  ...templateVersions,
  ...templateListing,
  ...templateModeration,
}
