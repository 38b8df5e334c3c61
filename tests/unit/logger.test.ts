import { describe, expect, it } from 'bun:test'
import { createJsonLogger } from '../../core/logger.ts'

/** A logger whose one-second windows end when the test says. */
function logged() {
  const lines: Array<Record<string, unknown>> = []
  const windows: Array<() => void> = []
  const logger = createJsonLogger('info', (line) => lines.push(JSON.parse(line)), {
    after: (_, then) => void windows.push(then),
  })
  const endWindows = () => {
    for (const then of windows.splice(0)) then()
  }
  return { logger, lines, endWindows }
}

describe('the JSON logger', () => {
  it('writes an error once a second at most, then says how many more came', () => {
    const { logger, lines, endWindows } = logged()
    for (let i = 0; i < 38; i++) logger.error('database unreachable', { attempt: i })
    expect(lines.map((l) => l.msg)).toEqual(['database unreachable'])
    endWindows()
    expect(lines[1]).toMatchObject({
      level: 'error',
      msg: 'database unreachable (37 more times in the last second)',
      repeated: 37,
      attempt: 37,
    })
    // A quiet second closes the window: the next one is written at once.
    endWindows()
    logger.error('database unreachable')
    expect(lines).toHaveLength(3)
  })

  it('counts each kind of failure apart, across child loggers, and never holds back info', () => {
    const { logger, lines, endWindows } = logged()
    const child = logger.child({ runId: 'run_1' })
    logger.warn('could not start run')
    child.warn('could not start run')
    logger.error('could not start run')
    logger.info('recovering runs')
    logger.info('recovering runs')
    expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'warn could not start run',
      'error could not start run',
      'info recovering runs',
      'info recovering runs',
    ])
    endWindows()
    expect(lines[4]).toMatchObject({
      level: 'warn',
      msg: 'could not start run (1 more time in the last second)',
      runId: 'run_1',
    })
  })
})
