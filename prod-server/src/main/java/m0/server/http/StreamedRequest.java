package m0.server.http;

/**
 * The request whose body a session reads as it streams, from its head ({@link HttpParser#HEAD_READY})
 * to its body's end ({@link HttpParser#BODY_END}): the body its handler reads, the answer owed
 * for it, and whether the connection closes once the body is in. {@link HttpSession} decides
 * when; this keeps which request it is. The loop thread's only.
 */
final class StreamedRequest {

    /** Called from the handler's thread when it waits for more of the body. */
    private final Runnable wakeLoop;
    /** The body of the request being dispatched, when it streams (else null). */
    private RequestBody dispatching;
    /** Its head said Expect: 100-continue: the Continue is sent when its handler first reads. */
    private boolean expects;
    /** The slot whose request's body is being read as it streams; null when none. */
    private OwedResponse slot;
    /** The streamed request being read said Connection: close: close once its body is read. */
    private boolean closeAfterBody;

    StreamedRequest(Runnable wakeLoop) {
        this.wakeLoop = wakeLoop;
    }

    /** The parser has a head whose body streams: the body the parser fills from now on. */
    void begin(HttpParser parser) {
        RequestBody body = new RequestBody(wakeLoop);
        expects = parser.takeContinue();
        if (expects) body.owesContinue(); // sent when the handler first reads
        parser.streamTo(body);
        dispatching = body;
    }

    /** While its request is being dispatched: its body; else null. */
    RequestBody dispatching() {
        return dispatching;
    }

    /** Its request was dispatched: {@code owed}'s newest answer is its handler's, unless it did not run. */
    void dispatched(OwedAnswers owed) {
        RequestBody body = dispatching;
        dispatching = null;
        OwedResponse last = owed.newest();
        slot = last != null && last.exchange != null && last.exchange.reads(body) ? last : null;
        if (expects && slot != null) {
            owed.continueOwed(body, last); // its handler runs (a full pool answered 503 instead)
        }
    }

    /** Its request asked for the close: the connection closes once the body is read. */
    void closeAfterBody() {
        closeAfterBody = true;
    }

    /** The body is read whole; true when the connection is to close now. */
    boolean end() {
        slot = null;
        return closeAfterBody;
    }

    /** The session answers an error while the body is read. */
    void broken() {
        if (slot != null) {
            slot.bodyBroken = true; // its handler's read fails because of this: the answer is ours
            slot = null;
        }
    }
}
