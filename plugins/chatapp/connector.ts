import { defineConnector, Secret, Type } from '../../core/plugin/sdk.ts'
import { checkInstallation } from './channels.ts'

/** The organization's installation of the chat app in one team (workspace). */
export const chatappConnector = defineConnector({
  type: 'chatapp',
  name: 'Chat platform',
  description: "The chat app installed in a team: events from that team go to this organization's workflows.",
  provider: 'Chat platform',
  tags: ['chat'],
  data: Type.Object({
    teamId: Type.String({ minLength: 1, description: 'the team (workspace) id, e.g. T0123ABCD' }),
    botToken: Secret({ description: 'the bot token of the installation' }),
    apiBaseUrl: Type.Optional(
      Type.String({ format: 'uri', description: "the platform's Web API, e.g. https://chat.example/api" }),
    ),
  }),
  test: checkInstallation,
})
