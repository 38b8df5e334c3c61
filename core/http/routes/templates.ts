/**
 * Templates, tags and apps (API.md, "Templates", "Tags"); the public widget page of a workflow
 * is widgets.ts.
 *
 * Each use case is a plugin of its own file: publishing and browsing (template-publishing.ts),
 * moderation (template-moderation.ts), forking (template-forks.ts), tags (template-tags.ts) and
 * apps (apps.ts). They are composed here in the order the API document lists them.
 */
import { Elysia } from 'elysia'
import type { AppService } from '../../services/apps.ts'
import type { TemplateService } from '../../services/templates.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { appRoutes } from './apps.ts'
import { templateForkRoutes } from './template-forks.ts'
import { templateModerationRoutes } from './template-moderation.ts'
import { templatePublishingRoutes } from './template-publishing.ts'
import { templateTagRoutes } from './template-tags.ts'

export function templateRoutes(auth: AuthPlugin, templates: TemplateService, apps: AppService) {
  return new Elysia({ name: 'routes.templates' })
    .use(templatePublishingRoutes(auth, templates))
    .use(templateModerationRoutes(auth, templates))
    .use(templateForkRoutes(auth, templates))
    .use(templateTagRoutes(auth, templates))
    .use(appRoutes(auth, apps))
}
