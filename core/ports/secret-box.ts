/**
 * Authenticated encryption for secrets at rest (connector data, signing secrets).
 * Ciphertexts are self-describing strings, so a stored value says which key version made it.
 */
export interface SecretBox {
  seal(plaintext: string): Promise<string>
  open(sealed: string): Promise<string>
}
