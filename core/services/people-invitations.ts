/**
 * Invitations into an organization: a member invites an email with a role (the token shown once
 * to the inviter), lists and revokes pending ones; the invited person accepts signed in as that
 * email, or as a new person with a name and a password. Accepting never checks an existing
 * account's password: the inviter holds the token too.
 */
import { ROLE_PERMISSIONS, type Role } from '../domain/permissions.ts'
import { AppError, badRequest, conflict, forbidden, notFound, unauthorized } from '../errors.ts'
import { isUniqueViolation, type SqlExecutor } from '../ports/store.ts'
import { sha256Hex } from '../security/hash.ts'
import { members } from '../store/members.ts'
import { type InvitationRow, invitations, users } from '../store/users.ts'
import { assertDelegable } from './api-keys.ts'
import { actorOf, type Principal } from './auth.ts'
import {
  checkPassword,
  type Invitation,
  INVITATION_TOKEN_PREFIX,
  type Joined,
  type PeopleContext,
  randomToken,
  type RequestMeta,
  type SignedIn,
  toInvitation,
} from './people-context.ts'

/** The invitation operations of the people service. */
export function invitationOperations(ctx: PeopleContext) {
  const { deps, settings, userOf, startSession, signedIn } = ctx
  const { store, clock } = deps

  const gone = () => new AppError(404, 'invitation not found, already used, revoked or expired')
  // The one refusal of an invitation presented without a session and without a new person's name
  // and password, or for an email that has an account: whoever holds a token learns no more.
  const signInToAccept = () =>
    unauthorized(
      'sign in as the invited person to accept this invitation, or give a name and a password to create an account',
    )

  async function openInvitation(token: string): Promise<InvitationRow> {
    if (!token.startsWith(INVITATION_TOKEN_PREFIX)) throw gone()
    const invitation = await invitations.byTokenHash(store, await sha256Hex(token))
    if (
      !invitation ||
      invitation.accepted_at !== null ||
      invitation.revoked_at !== null ||
      invitation.expires_at <= clock.now()
    )
      throw gone()
    return invitation
  }

  /** Marks the invitation used and makes the member, in one transaction. */
  async function join(tx: SqlExecutor, invitation: InvitationRow, userId: string, at: number): Promise<void> {
    if ((await invitations.accept(tx, invitation.id, userId, at)) === 0) throw gone()
    if (
      (await members.add(tx, { organizationId: invitation.organization_id, userId, role: invitation.role, at })) === 0
    ) {
      throw conflict('you are already a member of this organization')
    }
  }

  return {
    async invite(caller: Principal, body: { email: string; role: Role }): Promise<Invitation & { token: string }> {
      assertDelegable(caller, ROLE_PERMISSIONS[body.role])
      const email = body.email.trim().toLowerCase()
      const existing = await users.byEmail(store, email)
      if (existing && (await members.get(store, caller.organizationId, existing.id)))
        throw conflict(`${email} is already a member of this organization`)
      const token = randomToken(INVITATION_TOKEN_PREFIX)
      const at = clock.now()
      const id = deps.ids.next('inv')
      const tokenHash = await sha256Hex(token)
      await store.write((tx) =>
        invitations.insert(tx, {
          id,
          organizationId: caller.organizationId,
          email,
          role: body.role,
          tokenHash,
          invitedBy: actorOf(caller),
          at,
          expiresAt: at + settings.invitationTtlMs,
        }),
      )
      return { ...toInvitation((await invitations.byId(store, caller.organizationId, id))!), token }
    },

    async invitations(caller: Principal, page: { limit: number; offset: number }) {
      const rows = await invitations.pending(store, caller.organizationId, clock.now(), page.limit + 1, page.offset)
      return {
        hasMore: rows.length > page.limit,
        items: rows.slice(0, page.limit).map(toInvitation),
        limit: page.limit,
        offset: page.offset,
      }
    },

    async revokeInvitation(caller: Principal, id: string): Promise<{ id: string; revoked: true }> {
      const changed = await store.write((tx) => invitations.revoke(tx, caller.organizationId, id, clock.now()))
      if (changed === 0) throw notFound('invitation')
      return { id, revoked: true }
    },

    /**
     * Joins the invitation's organization, one of two ways:
     * - signed in (`caller`) as the invited email: the session goes on, with the new membership;
     * - without a session, as a new person who chooses a name and a password, and is signed in.
     * An email that has an account, without its session, gets the same 401 as a request with no
     * name and password: its password is never checked here, so a token is no password oracle,
     * and nothing but a successful new account tells an email without an account apart.
     */
    async acceptInvitation(
      input: { token: string; name?: string; password?: string },
      caller: { userId: string } | null,
      meta: RequestMeta,
    ): Promise<SignedIn | Joined> {
      const invitation = await openInvitation(input.token)
      if (caller) {
        const user = await users.byId(store, caller.userId)
        if (!user) throw unauthorized('unknown or ended session; sign in again')
        if (user.email !== invitation.email)
          throw forbidden('this invitation is for someone else: sign in as the invited person to accept it')
        await store.write((tx) => join(tx, invitation, user.id, clock.now()))
        return { user: await userOf(user) }
      }
      if (input.name === undefined && input.password === undefined) throw signInToAccept()
      checkPassword(input.password ?? '')
      const name = input.name?.trim()
      if (!name) throw badRequest('name is required to create an account', [{ path: '/name', message: 'required' }])
      if (await users.byEmail(store, invitation.email)) throw signInToAccept()
      const hash = await deps.passwords.hash(input.password!)
      const userId = deps.ids.next('usr')
      const started = await store
        .write(async (tx) => {
          const at = clock.now()
          await users.insert(tx, { id: userId, email: invitation.email, name, passwordHash: hash, at })
          await join(tx, invitation, userId, at)
          return startSession(tx, userId, meta)
        })
        .catch((error) => {
          // The account was made meanwhile (by another acceptance, or the CLI).
          throw isUniqueViolation(error) ? signInToAccept() : error
        })
      return signedIn(userId, started)
    },
  }
}
