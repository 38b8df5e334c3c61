/**
 * Forking a template into a draft workflow of the caller's organization, from the version the
 * caller sees. Prop values are checked against `templateProps`; the sensitive ones are sealed in
 * the new workflow (runs read them as `{{$props.key}}`; everything answered masks them by value).
 * Each node that needs a connector gets one of the caller's; another organization's connector ids
 * are dropped. The attached app is copied into the adopting organization (template-apps.ts).
 */
import { checkPropValues } from '../domain/template-props.ts'
import type { Definition } from '../domain/workflow.ts'
import type { ForkBody, TemplateContent } from '../domain/template.ts'
import { badRequest, type ErrorDetail, notFound } from '../errors.ts'
import type { SqlExecutor } from '../ports/store.ts'
import { connectors } from '../store/connectors.ts'
import { apps, type ShownTemplateRow, templates } from '../store/templates.ts'
import { workflows } from '../store/workflows.ts'
import { actorOf, type Principal } from './auth.ts'
import { appForFork } from './template-apps.ts'
import type { TemplateContext } from './template-context.ts'

function maskSensitive(values: Record<string, unknown>, sensitive: ReadonlySet<string>) {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, sensitive.has(k) ? '********' : v]))
}

/** The template's definition with the caller's connectors in the nodes `connectors` names; problems for the others. */
async function withConnectors(
  db: SqlExecutor,
  caller: Principal,
  row: ShownTemplateRow,
  definition: Definition,
  chosen: Record<string, string>,
  errors: ErrorDetail[],
) {
  for (const [nodeId, connectorId] of Object.entries(chosen)) {
    const node = definition.nodes[nodeId]
    if (!node) {
      errors.push({ path: `/connectors/${nodeId}`, message: 'no such node in the template' })
      continue
    }
    const c = await connectors.byId(db, caller.organizationId, connectorId)
    if (!c) errors.push({ path: `/connectors/${nodeId}`, message: 'no such connector in this organization' })
    else node.connector = { type: c.type, id: connectorId }
  }
  if (row.organization_id !== caller.organizationId) {
    for (const [nodeId, node] of Object.entries(definition.nodes)) {
      if (node.connector?.id && chosen[nodeId] === undefined) node.connector = { ...node.connector, id: undefined }
    }
  }
}

/** The forking operation of the template service. */
export function forkingOperations(ctx: TemplateContext) {
  const { deps } = ctx
  const { store, clock } = deps

  return {
    /** A draft workflow in the caller's organization from the version the caller sees. */
    async fork(caller: Principal, id: string, body: ForkBody) {
      const row = await ctx.shown(caller, id)
      if (row.archived === 1 && row.organization_id !== caller.organizationId) throw notFound('template')
      const content = JSON.parse(row.content) as TemplateContent
      const { values, errors } = checkPropValues(content.templateProps, body.propValues ?? {})
      const definition = structuredClone(content.definition)
      await withConnectors(store, caller, row, definition, body.connectors ?? {}, errors)
      if (errors.length > 0) throw badRequest('the prop values do not fit the template', errors)
      const sensitive = new Set(content.templateProps.filter((p) => p.sensitive).map((p) => p.key))
      const plain: Record<string, unknown> = {}
      const secret: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(values)) (sensitive.has(key) ? secret : plain)[key] = value
      const sealed = Object.keys(secret).length > 0 ? await deps.secretBox.seal(JSON.stringify(secret)) : null
      const handed = await appForFork(store, row, caller.organizationId)
      const workflow = await deps.workflows.create(
        caller,
        {
          name: body.name ?? content.name,
          description: content.description,
          definition,
          cooldownMs: content.cooldownMs,
          maxRuns: content.maxRuns,
          uiMetadata: content.uiMetadata,
          sourceTemplateId: id,
        },
        async (tx, workflowId) => {
          await workflows.setPropValues(tx, workflowId, JSON.stringify(plain), sealed)
          await templates.countFork(tx, id)
          if (handed) {
            const at = clock.now()
            const by = actorOf(caller)
            const appId = deps.ids.next('app')
            await apps.create(tx, {
              id: appId,
              versionId: deps.ids.next('app'),
              organizationId: caller.organizationId,
              name: handed.app.name,
              files: handed.version.files,
              size: handed.version.size,
              at,
              by,
            })
            await workflows.setApp(tx, workflowId, appId, null)
          }
        },
      )
      ctx.tagIndex.changed()
      if (sealed) deps.onSealed?.(caller.organizationId)
      return {
        workflow,
        appId: (await workflows.appOf(store, workflow.id)) ?? '',
        propValues: maskSensitive(values, sensitive),
      }
    },
  }
}
