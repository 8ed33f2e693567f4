// Re-encodes a GraphQL multipart request (the jaydenseric spec) for a subgraph as a stream:
// operations and map first, then each file piped from the upload as it arrives, so the router
// never holds a file in memory.
import { randomBytes } from 'node:crypto';
import type { FileUpload, GraphQLOperation } from 'graphql-upload-ts';
import { Upload } from 'graphql-upload-ts';

export interface FoundUpload {
  /** Path in the operation, e.g. `variables.file` or `variables.files.1`. */
  path: string;
  upload: Upload;
}

/** Replaces every Upload in the variables with null and lists where they were. */
export function extractUploads(operation: GraphQLOperation): { operation: GraphQLOperation; uploads: FoundUpload[] } {
  const uploads: FoundUpload[] = [];
  const strip = (value: unknown, path: string): unknown => {
    if (value instanceof Upload) {
      uploads.push({ path, upload: value });
      return null;
    }
    if (Array.isArray(value)) return value.map((v, i) => strip(v, `${path}.${i}`));
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, strip(v, `${path}.${k}`)]));
    return value;
  };
  const variables = strip(operation.variables ?? {}, 'variables') as Record<string, unknown>;
  return { operation: { ...operation, variables }, uploads };
}

export function multipartBody(
  operation: GraphQLOperation,
  uploads: FoundUpload[],
): { contentType: string; body: AsyncIterable<Buffer> } {
  const boundary = `----router${randomBytes(12).toString('hex')}`;
  const map = Object.fromEntries(uploads.map((u, i) => [String(i), [u.path]]));
  async function* body(): AsyncGenerator<Buffer> {
    yield field(boundary, 'operations', JSON.stringify(operation));
    yield field(boundary, 'map', JSON.stringify(map));
    for (const [i, { upload }] of uploads.entries()) {
      const file: FileUpload = await upload.promise;
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${i}"; filename="${file.filename.replace(/["\r\n]/g, '_')}"\r\n` +
          `Content-Type: ${file.mimetype || 'application/octet-stream'}\r\n\r\n`,
      );
      for await (const chunk of file.createReadStream()) yield chunk as Buffer;
      yield Buffer.from('\r\n');
    }
    yield Buffer.from(`--${boundary}--\r\n`);
  }
  return { contentType: `multipart/form-data; boundary=${boundary}`, body: body() };
}

function field(boundary: string, name: string, value: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${value}\r\n`,
  );
}
