import { InputField } from "./form-field";

/** A new API token's lifetime in days, as the admin's and a person's token forms both ask it (the server checks the same bounds). */
export function TokenExpiryField({ error }: { error?: string }) {
  return (
    <InputField
      label="Expires in (days)"
      name="expiresInDays"
      type="number"
      inputMode="numeric"
      min={1}
      max={3650}
      hint="Optional; empty means it never expires."
      error={error}
    />
  );
}
