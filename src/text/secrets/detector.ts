// What a secret detector is: the kind it finds, a cheap keyword gate, a linear-time pattern and a
// check on what the pattern caught. Detectors report where a secret is, never what it is.

export const SECRET_KINDS = [
  'private_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'github_token',
  'github_fine_grained_token',
  'gitlab_token',
  'slack_token',
  'slack_webhook_url',
  'stripe_live_key',
  'google_api_key',
  'anthropic_api_key',
  'openai_api_key',
  'voyage_api_key',
  'npm_token',
  'sendgrid_api_key',
  'discord_bot_token',
  'azure_storage_account_key',
  'twilio_api_key',
  'doco_token',
  'jwt',
  'url_password',
  'password_assignment',
  'bearer_token',
  'command_line_password',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export const SECRET_LABELS: Record<SecretKind, string> = {
  private_key: 'a private key block',
  aws_access_key_id: 'an AWS access key id',
  aws_secret_access_key: 'an AWS secret access key',
  github_token: 'a GitHub token',
  github_fine_grained_token: 'a GitHub fine-grained token',
  gitlab_token: 'a GitLab token',
  slack_token: 'a Slack token',
  slack_webhook_url: 'a Slack webhook URL',
  stripe_live_key: 'a Stripe live key',
  google_api_key: 'a Google API key',
  anthropic_api_key: 'an Anthropic API key',
  openai_api_key: 'an OpenAI API key',
  voyage_api_key: 'a Voyage API key',
  npm_token: 'an npm token',
  sendgrid_api_key: 'a SendGrid API key',
  discord_bot_token: 'a Discord bot token',
  azure_storage_account_key: 'an Azure storage account key',
  twilio_api_key: 'a Twilio API key with its secret',
  doco_token: 'a Doco token',
  jwt: 'a JSON Web Token',
  url_password: 'a password in a URL',
  password_assignment: 'a password or secret assignment',
  bearer_token: 'a bearer token',
  command_line_password: 'a password on a command line',
};

export interface Detector {
  kind: SecretKind;
  /**
   * Lowercase substrings of which one must occur in the lowercased text for the pattern to run:
   * most texts hold none, so most detectors cost one substring search.
   */
  keywords: string[];
  /** Global (`g`) and with indices (`d`); bounded quantifiers only, so a scan stays linear. */
  pattern: RegExp;
  /** The capture group holding the secret (0: the whole match; a list: the first that took part); its span is what redaction hides. */
  group?: number | number[];
  /**
   * Whether the caught string is a credential rather than a stand-in; `text` for detectors that look around. A
   * detector that finds a credential's other half nearby answers the span that covers both.
   */
  accept?(secret: string, match: RegExpExecArray, text: string): boolean | { start?: number; end: number };
}
