/** Wallets of an organization, and deploying a contract of the contract chat from one. */
import { Elysia } from 'elysia'
import { Type as T } from '@sinclair/typebox'
import { Page, pageRequest } from '../../domain/common.ts'
import type { WalletService } from '../../services/wallets.ts'
import { doc } from '../docs.ts'
import type { AuthPlugin } from '../middleware/auth.ts'
import { IdParams, PageQuery, t } from '../schemas.ts'

const tags = ['wallets']
const Wallet = T.Object({
  id: T.String(),
  organizationId: T.String(),
  name: T.String(),
  address: T.String(),
  isDefault: T.Boolean(),
  createdAt: T.String(),
  createdBy: T.String(),
})
const Balance = T.Object({
  chainId: T.Integer(),
  network: T.String(),
  native: T.String({ description: 'wei, as a decimal string; "" when the chain could not be read' }),
  tokens: T.Array(T.Object({ token: T.String(), balance: T.String() })),
  error: T.String({ description: 'why the chain could not be read; "" when it was' }),
})
const Deployment = T.Object({
  id: T.String(),
  contractId: T.String(),
  chainId: T.Integer(),
  address: T.String(),
  transactionHash: T.String(),
  walletId: T.String(),
  deployedAt: T.String(),
  deployedBy: T.String(),
})

export function walletRoutes(auth: AuthPlugin, wallets: WalletService) {
  return new Elysia({ name: 'routes.wallets' })
    .use(auth)
    .post('/v1/wallets', ({ principal, body }) => wallets.create(principal, body), {
      permission: 'wallet:write',
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 100 }),
        privateKey: t.Optional(t.String({ maxLength: 100 })),
      }),
      detail: doc({
        summary: 'Create a wallet: a new key, or one imported with privateKey',
        description:
          "The key is sealed with the master key and never answered. An organization's first wallet is its default.",
        tags,
        permission: 'wallet:write',
        response: Wallet,
        errors: [409],
      }),
    })
    .get('/v1/wallets', ({ principal, query }) => wallets.list(principal, pageRequest(query)), {
      permission: 'wallet:read',
      query: PageQuery,
      detail: doc({ summary: "The organization's wallets", tags, permission: 'wallet:read', response: Page(Wallet) }),
    })
    .get(
      '/v1/wallets/:id',
      ({ principal, params, query }) =>
        wallets.get(
          principal,
          params.id,
          query.tokens
            ? query.tokens
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean)
            : [],
        ),
      {
        permission: 'wallet:read',
        params: IdParams,
        query: t.Object({
          tokens: t.Optional(t.String({ maxLength: 2000, description: 'token contract addresses, comma-separated' })),
        }),
        detail: doc({
          summary: 'A wallet with its balances on every configured chain',
          tags,
          permission: 'wallet:read',
          response: T.Composite([Wallet, T.Object({ balances: T.Array(Balance) })]),
          errors: [404],
        }),
      },
    )
    .post('/v1/wallets/:id/default', ({ principal, params }) => wallets.makeDefault(principal, params.id), {
      permission: 'wallet:write',
      params: IdParams,
      detail: doc({
        summary: "Make a wallet the organization's default",
        tags,
        permission: 'wallet:write',
        response: Wallet,
        errors: [404],
      }),
    })
    .post('/v1/wallets/:id/transfer', ({ principal, params, body }) => wallets.transfer(principal, params.id, body), {
      permission: 'wallet:withdraw',
      params: IdParams,
      body: t.Object({
        chainId: t.Integer({ minimum: 1 }),
        token: t.String({
          minLength: 1,
          maxLength: 64,
          description: "an ERC-20 address, or `native` for the chain's gas token",
        }),
        to: t.String({ minLength: 1, maxLength: 64 }),
        amount: t.String({ minLength: 1, maxLength: 78, description: "in the token's smallest unit" }),
      }),
      detail: doc({
        summary: 'Send tokens from a wallet',
        description:
          'Answers the transaction hash once the chain has mined it. A wallet without enough of the token (or of gas) is 400.',
        tags,
        permission: 'wallet:withdraw',
        errors: [404, 503],
        response: T.Object({
          walletId: T.String(),
          chainId: T.Integer(),
          token: T.String(),
          to: T.String(),
          amount: T.String(),
          transactionHash: T.String(),
        }),
      }),
    })
    .delete('/v1/wallets/:id', ({ principal, params }) => wallets.remove(principal, params.id), {
      permission: 'wallet:write',
      params: IdParams,
      detail: doc({
        summary: 'Delete a wallet (its key is gone with it)',
        tags,
        permission: 'wallet:write',
        errors: [404],
        response: T.Object({ id: T.String(), deleted: T.Literal(true) }),
      }),
    })
    .post(
      '/v1/contracts/:id/deploy',
      ({ principal, params, body }) => wallets.deployContract(principal, params.id, body),
      {
        permission: 'wallet:withdraw',
        params: IdParams,
        body: t.Object({
          chainId: t.Integer({ minimum: 1 }),
          walletId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
          constructorArgs: t.Optional(t.Array(t.Any(), { maxItems: 50 })),
        }),
        detail: doc({
          summary: 'Deploy a compiled contract to a configured chain from a wallet (the default when none is named)',
          description:
            "Answers the deployment (address, transaction hash) once the chain has mined it. Spends the wallet's gas: wallet:withdraw.",
          tags: ['contracts'],
          permission: 'wallet:withdraw',
          response: Deployment,
          errors: [404, 409, 503],
        }),
      },
    )
}
