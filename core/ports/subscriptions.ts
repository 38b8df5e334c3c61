/**
 * The subscriptions of triggers with `onEnable` (runtime/subscriptions implements it). A publish,
 * resume or unarchive enables the trigger instances of the version about to go live before its
 * transaction: `onEnable` calls the platform, which cannot happen while the workflow row is
 * locked. The transaction's reconciliation then keeps these rows and marks the ones no longer
 * wanted for `onDisable`, which never blocks anything.
 */
import type { Definition } from '../domain/workflow.ts'

/** What one enable made: undone when the change it was made for does not commit. */
export interface EnabledSubscriptions {
  /** Hands the subscriptions enabled in this attempt to `onDisable` (in the background). */
  undo(): Promise<void>
}

export interface SubscriptionEnabler {
  /**
   * Calls `onEnable` for each trigger instance of `definition` that has one and is not already
   * enabled with the same configuration. A refusal throws an AppError: 400 with the plugin's
   * message, 502 when the platform could not be reached; instances enabled before it are undone.
   */
  enable(organizationId: string, workflowId: string, definition: Definition): Promise<EnabledSubscriptions>
}
