/**
 * The work queue: how a process asks "some worker, please look at run X" — start it, or take
 * the events waiting in its inbox. Delivery is at-least-once and any worker may take a
 * notification; ownership of the run itself is decided in the store, so a duplicate or a
 * stale notification is harmless. Nothing is lost if a notification is: the store's state
 * (running runs, inbox rows) is swept periodically.
 */
export interface WorkQueue {
  notify(runId: string): Promise<void>
  /**
   * Hands notifications to `take`, at most `concurrency` at once; a notification is acknowledged
   * when `take` resolves and handed out again when it rejects.
   */
  consume(take: (runId: string) => Promise<void>, concurrency: number): Promise<WorkConsumer>
  close(): Promise<void>
}

export interface WorkConsumer {
  stop(): Promise<void>
}
