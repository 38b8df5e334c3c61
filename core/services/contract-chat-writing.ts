/** Writing an approved contract: the model writes Solidity, which is compiled, with one repair turn on a compile error. */
import type { AiMessage } from '../ports/ai.ts'
import { callModel, type ContractTurn, updateContract, WRITE_TOOL } from './contract-chat-tools.ts'

const CODE_CHUNK = 400

/** Writes and compiles; on a compile error, one repair turn with the errors. */
export async function writeContract(turn: ContractTurn, extra: AiMessage[]): Promise<void> {
  const { emit } = turn
  let written = await callModel(turn, extra, WRITE_TOOL)
  for (let attempt = 0; written && attempt < 2; attempt++) {
    const source = String(written.args.source ?? '')
    for (let i = 0; i < source.length; i += CODE_CHUNK) emit('code.delta', { text: source.slice(i, i + CODE_CHUNK) })
    const errors = await compile(turn, source)
    if (!errors) return
    if (attempt === 1) {
      await updateContract(turn, { status: 'compile_failed', source, compile_error: errors.join('\n\n') })
      emit('compile_error', { errors })
      return
    }
    written = await callModel(
      turn,
      [
        {
          role: 'tool',
          toolCallId: written.id,
          content: `The compiler refused it:\n${errors.join('\n\n')}\nFix it and call write_contract again with the whole source.`,
        },
      ],
      WRITE_TOOL,
    )
  }
  if (!written) emit('error', { message: 'the model wrote no contract' })
}

/** Compiles the source: once it compiles, the contract is `compiled` and null is answered; else the errors. */
async function compile(turn: ContractTurn, source: string): Promise<string[] | null> {
  const c = turn.contract
  const compiled = await turn.deps.compiler.compile(source, `${c.name.replace(/[^A-Za-z0-9_]/g, '') || 'Contract'}.sol`)
  const main =
    compiled.contracts.find((x) => x.name === (JSON.parse(c.plan ?? '{}') as { name?: string }).name) ??
    compiled.contracts.at(-1)
  if (compiled.errors.length === 0 && main) {
    await updateContract(turn, {
      status: 'compiled',
      source,
      abi: JSON.stringify(main.abi),
      bytecode: main.bytecode,
      compile_error: null,
    })
    turn.emit('compiled', { name: main.name, abi: main.abi, bytecode: main.bytecode, warnings: compiled.warnings })
    return null
  }
  return compiled.errors.length > 0 ? compiled.errors : ['the source holds no contract']
}
