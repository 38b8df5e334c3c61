/**
 * Entry of a sandbox worker thread. It loads the QuickJS engine, says whether it is ready, then
 * runs each RunRequest with the synchronous in-process run and posts back the result or error.
 * The pool sends one request at a time and enforces the hard time bound: it sets the request's
 * shared cancel flag, which the run polls with its own deadline, and terminates the thread.
 *
 * `bun build --compile` must be given this file as an extra entrypoint (see package.json).
 */
import { acquireEngine, isRetired, type Engine } from './quickjs.ts'
import {
  isCancelled,
  nameAndMessage,
  toWireError,
  type RunReply,
  type RunRequest,
  type WorkerMessage,
} from './protocol.ts'
import { runTransformOn } from './run-transform.ts'

/** The part of the worker global scope this file uses (the DOM lib types `self` as a window). */
interface WorkerScope {
  addEventListener(type: 'message', listener: (event: MessageEvent<RunRequest>) => void): void
  postMessage(message: WorkerMessage): void
}

const scope = globalThis as unknown as WorkerScope
const loading = acquireEngine()

scope.addEventListener('message', (event) => {
  // A failed load is reported once, by the start message, and the pool then ends this worker.
  loading.then(
    (engine) => scope.postMessage(run(engine, event.data)),
    () => undefined,
  )
})

loading.then(
  () => scope.postMessage({ ready: true }),
  (error: unknown) => scope.postMessage({ ready: false, message: nameAndMessage(error) }),
)

function run(engine: Engine, request: RunRequest): RunReply {
  const { id, code, inputJson, limits, cancel } = request
  try {
    const result = runTransformOn(engine, code, inputJson, limits, () => isCancelled(cancel))
    return { id, retire: isRetired(engine), ok: true, result }
  } catch (error) {
    return { id, retire: isRetired(engine), ok: false, error: toWireError(error) }
  }
}
