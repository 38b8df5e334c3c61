/**
 * Starter templates: a fresh installation's gallery is not empty. Once per installation, the five
 * templates of starter-template-list.ts are created public and approved in the operator
 * organization (created when it does not exist yet), with their tags. Later changes are the
 * operator's: an archived or changed starter is never brought back. `AUTOMATON_STARTER_TEMPLATES=false`
 * leaves them out.
 */
import { PERMISSIONS } from '../domain/permissions.ts'
import { AppError } from '../errors.ts'
import type { Clock } from '../ports/clock.ts'
import type { Logger } from '../ports/logger.ts'
import type { Store } from '../ports/store.ts'
import { installationSettings } from '../store/installation-settings.ts'
import { organizations } from '../store/organizations.ts'
import type { Principal } from './auth.ts'
import type { OrganizationService } from './organizations.ts'
import { STARTER_TEMPLATES } from './starter-template-list.ts'
import type { TemplateService } from './templates.ts'

/** The installation setting that says the starters were offered once. */
export const STARTERS_SEEDED = 'starter_templates_seeded'

export interface StarterTemplateDeps {
  store: Store
  clock: Clock
  logger: Logger
  organizations: Pick<OrganizationService, 'ensure'>
  templates: Pick<TemplateService, 'create' | 'approve'>
  /** AUTOMATON_OPERATOR_ORG: a name or an id. */
  operatorOrganization: string
  /** AUTOMATON_STARTER_TEMPLATES. */
  enabled: boolean
}

/** The installation itself, acting as an owner of the operator organization. */
const installationAs = (organizationId: string): Principal => ({
  kind: 'key',
  organizationId,
  keyId: 'installation',
  sessionId: null,
  serviceAccountId: null,
  userId: null,
  role: 'owner',
  scope: 'read-write',
  permissions: new Set(PERMISSIONS),
})

/** The operator organization's id; created (by name) when it does not exist yet. */
async function operatorOrganization(deps: StarterTemplateDeps): Promise<string> {
  const found = await organizations.idByIdOrName(deps.store, deps.operatorOrganization)
  if (found) return found
  return (await deps.organizations.ensure(deps.operatorOrganization)).id
}

/** Offers the starter templates once per installation; a slug already taken (another process) is left alone. */
export async function seedStarterTemplates(deps: StarterTemplateDeps): Promise<void> {
  if (!deps.enabled || (await installationSettings.get(deps.store, STARTERS_SEEDED)) !== null) return
  const caller = installationAs(await operatorOrganization(deps))
  for (const starter of STARTER_TEMPLATES) {
    try {
      const created = await deps.templates.create(caller, { ...starter, visibility: 'public' })
      await deps.templates.approve(caller, created.id)
    } catch (error) {
      // Another process offered it at the same moment: its slug is taken. Anything else is logged:
      // the gallery is a convenience, never a reason not to start.
      if (error instanceof AppError && error.status === 409) continue
      deps.logger.warn('a starter template could not be offered', {
        slug: starter.slug,
        error: error instanceof Error ? error.message : String(error),
        details: error instanceof AppError ? error.details : [],
      })
    }
  }
  await deps.store.write((tx) => installationSettings.setIfAbsent(tx, STARTERS_SEEDED, '1', deps.clock.now()))
  deps.logger.info('starter templates offered', { count: STARTER_TEMPLATES.length })
}
