/**
 * Event streams as the HTTP layer needs them: a run's journal, or an organization's (or one
 * workflow's), replayed from a position and then followed live, with no gap and no duplicate.
 * The engine implements this over the store and the bus; the HTTP layer only formats it.
 */
import type { RecordedEvent } from '../domain-events.ts'

export interface StreamSink {
  send(event: RecordedEvent): void
  /** The stream has nothing more to say (the run ended). */
  end(): void
}

export interface StreamHub {
  /**
   * A run's events with `seq` greater than `afterSeq`, then live ones, ending after its terminal
   * event. A run that does not exist yet is waited for (a client may subscribe with its own run
   * id before starting the run). Resolves to null when the run belongs to another organization.
   */
  subscribeRun(organizationId: string, runId: string, afterSeq: number, sink: StreamSink): Promise<(() => void) | null>
  /**
   * An organization's events with an id greater than `afterId`, then live ones, optionally only
   * one workflow's and only some types.
   */
  subscribeOrganization(
    organizationId: string,
    filter: { workflowId?: string; types?: (type: string) => boolean },
    afterId: number,
    sink: StreamSink,
  ): Promise<() => void>
  /** The id of the newest event: where a stream that wants only new events starts. */
  latestEventId(): Promise<number>
}
