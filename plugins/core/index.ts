/** The built-in plugin: the generic trigger and the logic, data, flow and HTTP nodes. */
import { definePlugin } from '../../core/plugin/sdk.ts'
import { codeTransform, log, regex, setVariable } from './actions/data.ts'
import { httpRequest, sendWebhook, triggerWorkflow } from './actions/http.ts'
import { filter, forEach, ifNode, pluck } from './actions/logic.ts'
import { approval, delay, wait } from './actions/waits.ts'
import { approvalTrigger } from './triggers/approval.ts'
import { manual } from './triggers/manual.ts'

export default definePlugin({
  id: 'core',
  name: 'Core',
  version: '1.0.0',
  triggers: [manual, approvalTrigger],
  actions: [ifNode, forEach, filter, pluck, delay, wait, approval, log, regex, codeTransform, setVariable, httpRequest, sendWebhook, triggerWorkflow],
})
