/** The part of s3rver (a local S3 stand-in, no types of its own) that the local S3 endpoint uses. */
declare module 's3rver' {
  interface S3rverOptions {
    readonly address?: string;
    readonly port?: number;
    readonly directory: string;
    readonly silent?: boolean;
    readonly configureBuckets?: readonly { readonly name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
