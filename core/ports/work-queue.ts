/**
 * The work queue: how a process asks "some worker, please look at run X" — start it, or take
 * the events waiting in its inbox. Delivery is at-least-once and any worker may take a
 * notification; ownership of the run itself is decided in the store, so a duplicate or a
 * stale notification is harmless. Nothing is lost if a notification is: the store's state
 * (running runs, inbox rows) is swept periodically.
 */
export interface WorkQueue {
  /** Resolves once the notification is stored, or kept by the adapter to be stored as soon as it can. */
  notify(runId: string): Promise<void>
  /**
   * Hands notifications to `take`, at most `concurrency` at once; a notification is acknowledged
   * when `take` resolves and handed out again when it rejects.
   */
  consume(take: (runId: string) => Promise<void>, concurrency: number): Promise<WorkConsumer>
  /**
   * Calls `listener` when notifications stored earlier may be lost (the queue's storage was found
   * wiped and made again): the runs they named are then known only to the store. Queues that
   * cannot lose what they stored need not offer it.
   */
  onLoss?(listener: () => void): { unsubscribe(): void }
  close(): Promise<void>
}

export interface WorkConsumer {
  stop(): Promise<void>
}
