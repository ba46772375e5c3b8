/**
 * An in-memory database for ltijs (its database plugin interface: setup, Get, Insert, Replace,
 * Modify, Delete, Close), for the conformance test of the test platform: ltijs's own database is
 * MongoDB, which cannot be run here. Documents are kept as given, unencrypted (ltijs's encryption
 * is MongoDB's at-rest concern, not part of what the test checks); a query matches a document
 * whose fields equal each of the query's defined fields, as MongoDB's equality match does.
 */
type Document = Record<string, unknown>;

const matches = (document: Document, query: Document | undefined): boolean =>
  Object.entries(query ?? {}).every(([field, value]) => value === undefined || JSON.stringify(document[field]) === JSON.stringify(value));
const copy = <T>(value: T): T => structuredClone(value);

export class MemoryDatabase {
  private readonly collections = new Map<string, Document[]>();

  private collection(name: string): Document[] {
    let documents = this.collections.get(name);
    if (!documents) this.collections.set(name, (documents = []));
    return documents;
  }

  setup(): Promise<true> {
    return Promise.resolve(true);
  }

  Close(): Promise<true> {
    this.collections.clear();
    return Promise.resolve(true);
  }

  /** The documents matching the query (all without one), or false when none does, as ltijs expects. */
  Get(_key: string | false, collection: string, query?: Document): Promise<Document[] | false> {
    const found = this.collection(collection).filter((document) => matches(document, query));
    return Promise.resolve(found.length === 0 ? false : found.map(copy));
  }

  Insert(_key: string | false, collection: string, item: Document, index?: Document): Promise<true> {
    this.collection(collection).push(copy({ ...index, ...item, createdAt: Date.now() }));
    return Promise.resolve(true);
  }

  /** Replaces the first match, or inserts (an upsert). */
  Replace(_key: string | false, collection: string, query: Document, item: Document, index?: Document): Promise<true> {
    const documents = this.collection(collection);
    const at = documents.findIndex((document) => matches(document, query));
    const replacement = copy({ ...index, ...item, createdAt: Date.now() });
    if (at < 0) documents.push(replacement);
    else documents[at] = replacement;
    return Promise.resolve(true);
  }

  Modify(_key: string | false, collection: string, query: Document, modification: Document): Promise<true> {
    const documents = this.collection(collection);
    const at = documents.findIndex((document) => matches(document, query));
    if (at >= 0) documents[at] = { ...documents[at], ...copy(modification) };
    return Promise.resolve(true);
  }

  Delete(collection: string, query: Document): Promise<true> {
    const documents = this.collection(collection);
    this.collections.set(
      collection,
      documents.filter((document) => !matches(document, query)),
    );
    return Promise.resolve(true);
  }
}
