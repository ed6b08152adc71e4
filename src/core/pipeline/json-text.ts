/** A response body already serialized, which the handler sends as is instead of stringifying. */
export class JsonText {
  constructor(readonly text: string) {}
}
