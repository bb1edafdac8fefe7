/**
 * AWS Signature Version 4 for one request, by `aws4fetch` (pinned in deno.json): the headers that
 * authenticate a POST to an AWS service (`authorization`, `x-amz-date`, `x-amz-security-token` for
 * temporary credentials). The payload is hashed, so the body must be sent exactly as signed.
 *
 * @module
 */
import { AwsV4Signer } from "aws4fetch";
import type { AwsCredentials } from "./aws_credentials.ts";

/** What is signed. */
export interface SigV4Input {
  /** Where it goes. */
  url: string;
  /** `POST`, `GET`. */
  method: string;
  /** The headers sent (lower-case names); `host` is the URL's. */
  headers: Record<string, string>;
  /** The payload, hashed into the signature. */
  body: string | Uint8Array<ArrayBuffer>;
  /** The credential scope's region. */
  region: string;
  /** The credential scope's service (`bedrock`). */
  service: string;
  /** The signing time, `YYYYMMDDTHHMMSSZ` (default: now). */
  datetime?: string;
}

/**
 * The headers a request needs on top of its own to be authentic under SigV4.
 *
 * @example
 * ```ts ignore
 * const added = await sigv4Headers({ url, method: "POST", headers, body, region: "us-east-1", service: "bedrock" }, creds);
 * ```
 */
export async function sigv4Headers(
  input: SigV4Input,
  credentials: AwsCredentials,
): Promise<Record<string, string>> {
  const signer = new AwsV4Signer({
    url: input.url,
    method: input.method,
    headers: input.headers,
    body: input.body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
    region: input.region,
    service: input.service,
    ...(input.datetime ? { datetime: input.datetime } : {}),
  });
  const signed = await signer.sign();
  const out: Record<string, string> = {};
  for (const name of ["authorization", "x-amz-date", "x-amz-security-token"]) {
    const value = signed.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}
