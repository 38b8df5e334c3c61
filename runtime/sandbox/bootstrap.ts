/**
 * Prepares a fresh QuickJS context before the user's code runs: installs a `console` that
 * forwards formatted lines to the host, and keeps the intrinsic JSON functions and an error
 * describer out of the user's reach, so redefining globals cannot fool the sandbox.
 * It adds nothing else to the global scope: no timers, no fetch, no module loader.
 */
import type { QuickJSContext, QuickJSHandle, Scope } from 'quickjs-emscripten-core'
import { MAX_JSON_DEPTH } from './json-text.ts'
import type { LogCollector } from './log-collector.ts'

export const BOOTSTRAP_FILE = 'sandbox-bootstrap.js'

/** Longest line or error text the VM formats; the host cuts lines further to its budget. */
const MAX_TEXT_CHARS = 10 * 1024

/** Functions captured before user code runs; handles live in the run's scope. */
export interface VmHelpers {
  /** The intrinsic `JSON.parse`. */
  readonly parse: QuickJSHandle
  /** The intrinsic `JSON.stringify`, refusing values nested deeper than MAX_JSON_DEPTH. */
  readonly stringify: QuickJSHandle
  /** `(error) => ['Name: message', stack]`, never throwing for catchable problems. */
  readonly describe: QuickJSHandle
}

const SOURCE = String.raw`(function (hostLog, maxChars, maxDepth) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const apply = Reflect.apply;
  const slice = String.prototype.slice;
  const toText = String;
  const ErrorType = Error;
  const RangeErrorType = RangeError;
  const clip = (text) => (text.length > maxChars ? apply(slice, text, [0, maxChars]) : text);
  // JSON.stringify with a depth limit: QuickJS serialises in C, recursing on the host's stack
  // and checking for cycles in time quadratic in the depth, where no interrupt can stop it.
  // Holders form a linked list of object literals, which user code cannot intercept the way it
  // can intercept writes to array indices through setters on Array.prototype.
  function toJson(value) {
    let top = null;
    let depth = 0;
    return stringify(value, function (key, item) {
      while (top !== null && top.item !== this) {
        top = top.parent;
        depth--;
      }
      if (typeof item === 'object' && item !== null) {
        if (depth >= maxDepth) throw new RangeErrorType('nests deeper than ' + maxDepth + ' levels');
        top = { item: item, parent: top };
        depth++;
      }
      return item;
    });
  }
  function show(value) {
    if (typeof value === 'string') return value;
    if (value instanceof ErrorType) return showError(value);
    try {
      const json = toJson(value);
      if (json !== undefined) return json;
    } catch (error) {
      if (typeof value === 'object' && value !== null) return '[unserialisable: ' + showError(error) + ']';
    }
    return typeof value === 'function' ? '[function]' : toText(value);
  }
  function showError(error) {
    try { return toText(error.name) + ': ' + toText(error.message); } catch (_) { return 'Error'; }
  }
  let open = true;
  function logger(level) {
    return function () {
      if (!open) return;
      let line = '';
      for (let i = 0; i < arguments.length && line.length <= maxChars; i++) {
        line += (i > 0 ? ' ' : '') + show(arguments[i]);
      }
      open = hostLog(level, clip(line)) === true;
    };
  }
  const console = {
    log: logger('log'), info: logger('info'), warn: logger('warn'),
    error: logger('error'), debug: logger('debug'),
  };
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
  function isErrorLike(error) {
    return error instanceof ErrorType ||
      (typeof error === 'object' && error !== null && typeof error.message === 'string');
  }
  function describe(error) {
    let text;
    let stack = '';
    try {
      if (isErrorLike(error)) {
        text = toText(error.name) + ': ' + toText(error.message);
        if (typeof error.stack === 'string') stack = error.stack;
      } else {
        text = 'Uncaught ' + (typeof error === 'string' ? stringify(error) : show(error));
      }
    } catch (_) {
      text = 'Uncaught error that could not be described';
    }
    return [clip(text), clip(stack)];
  }
  return [parse, toJson, describe];
})`

/**
 * Runs the bootstrap in `vm`. Returns the captured helpers, or the VM error handle if the
 * bootstrap itself failed (only when the limits leave no room for it).
 */
export function installBootstrap(
  vm: QuickJSContext,
  scope: Scope,
  logs: LogCollector,
): VmHelpers | { error: QuickJSHandle } {
  const factory = vm.evalCode(SOURCE, BOOTSTRAP_FILE, { type: 'global', strict: true })
  if (factory.error) return { error: scope.manage(factory.error) }
  scope.manage(factory.value)
  const hostLog = scope.manage(vm.newFunction('hostLog', (level, line) => forward(vm, logs, level, line)))
  const maxChars = scope.manage(vm.newNumber(MAX_TEXT_CHARS))
  const maxDepth = scope.manage(vm.newNumber(MAX_JSON_DEPTH))
  const made = vm.callFunction(factory.value, vm.undefined, hostLog, maxChars, maxDepth)
  if (made.error) return { error: scope.manage(made.error) }
  const helpers = scope.manage(made.value)
  return {
    parse: scope.manage(vm.getProp(helpers, 0)),
    stringify: scope.manage(vm.getProp(helpers, 1)),
    describe: scope.manage(vm.getProp(helpers, 2)),
  }
}

const LEVEL_PREFIX: Readonly<Record<string, string>> = {
  log: '',
  info: '[info] ',
  warn: '[warn] ',
  error: '[error] ',
  debug: '[debug] ',
}

function forward(
  vm: QuickJSContext,
  logs: LogCollector,
  level: QuickJSHandle | undefined,
  line: QuickJSHandle | undefined,
): QuickJSHandle {
  if (!level || !line || vm.typeof(level) !== 'string' || vm.typeof(line) !== 'string') {
    return vm.true
  }
  const prefix = LEVEL_PREFIX[vm.getString(level)] ?? ''
  return logs.add(prefix + vm.getString(line)) ? vm.true : vm.false
}
