/**
 * The built-in plugin: the generic triggers (manual, cronjob, schedule), the logic, data, flow and
 * HTTP nodes, and the generic OAuth2 connector `http-request` may use.
 */
import { aiPrompt } from './actions/ai.ts'
import { x402Request } from './actions/x402.ts'
import { definePlugin } from '../../core/plugin/sdk.ts'
import { codeTransform, log, regex, setVariable } from './actions/data.ts'
import { httpRequest, sendWebhook, triggerWorkflow } from './actions/http.ts'
import { oauth2Connector } from './connectors/oauth2.ts'
import { filter, forEach, ifNode, pluck } from './actions/logic.ts'
import { approval, delay, wait } from './actions/waits.ts'
import { cronjob } from './triggers/cronjob.ts'
import { approvalTrigger } from './triggers/approval.ts'
import { manual } from './triggers/manual.ts'
import { schedule } from './triggers/schedule.ts'

export default definePlugin({
  id: 'core',
  name: 'Core',
  version: '1.0.0',
  connectors: [oauth2Connector],
  triggers: [manual, cronjob, schedule, approvalTrigger],
  actions: [
    ifNode,
    forEach,
    filter,
    pluck,
    delay,
    wait,
    approval,
    log,
    regex,
    codeTransform,
    setVariable,
    httpRequest,
    sendWebhook,
    triggerWorkflow,
    aiPrompt,
    x402Request,
  ],
})
