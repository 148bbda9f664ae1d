package m0.examples.embed;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The wire format of {@code POST /embed}: {@code {"text": "..."}} answers
 * {@code {"embedding": [384 floats]}}, {@code {"texts": ["...", ...]}} answers
 * {@code {"embeddings": [[...], ...]}} in the same order. Anything else is a {@link BadRequest}, a
 * blank text too (the model's tokenizer refuses it).
 */
final class EmbedJson {

    /** At most this many texts in one batch: a bigger one is a 400, not a minute of one thread. */
    static final int MAX_TEXTS = 256;

    private static final ObjectMapper JSON = new ObjectMapper();

    private EmbedJson() {
    }

    /** What the client asked: its texts, and whether it used the batch form. */
    record Ask(List<String> texts, boolean batch) {
    }

    /** The body is not a request we can answer: the message says why, for the 400. */
    static final class BadRequest extends Exception {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    static Ask parse(byte[] body) throws BadRequest {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (IOException e) {
            throw new BadRequest("not JSON: " + firstLine(e));
        }
        if (root == null || !root.isObject()) {
            throw new BadRequest("expected a JSON object with \"text\" or \"texts\"");
        }
        JsonNode text = root.get("text");
        JsonNode texts = root.get("texts");
        if ((text == null) == (texts == null)) {
            throw new BadRequest("expected exactly one of \"text\" or \"texts\"");
        }
        if (text != null) {
            if (!text.isTextual() || text.asText().isBlank()) {
                throw new BadRequest("\"text\" must be a string, not blank");
            }
            return new Ask(List.of(text.asText()), false);
        }
        if (!texts.isArray() || texts.isEmpty() || texts.size() > MAX_TEXTS) {
            throw new BadRequest("\"texts\" must be an array of 1 to " + MAX_TEXTS + " strings");
        }
        List<String> all = new ArrayList<>(texts.size());
        for (JsonNode t : texts) {
            if (!t.isTextual() || t.asText().isBlank()) {
                throw new BadRequest("\"texts\" must hold strings only, none blank");
            }
            all.add(t.asText());
        }
        return new Ask(all, true);
    }

    /** The answer to {@code ask}: one vector, or the batch's. */
    static byte[] answer(Ask ask, List<float[]> vectors) {
        StringBuilder b = new StringBuilder(vectors.size() * MiniLm.DIMENSION * 12 + 32);
        if (ask.batch()) {
            b.append("{\"embeddings\":[");
            for (int i = 0; i < vectors.size(); i++) {
                b.append(i == 0 ? "" : ",");
                floats(b, vectors.get(i));
            }
            b.append("]}");
        } else {
            b.append("{\"embedding\":");
            floats(b, vectors.get(0));
            b.append('}');
        }
        return b.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** {@code {"error": message}}. */
    static byte[] error(String message) {
        try {
            return JSON.writeValueAsBytes(java.util.Map.of("error", message));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Float.toString is the shortest text that reads back as the same float. */
    private static void floats(StringBuilder b, float[] v) {
        b.append('[');
        for (int i = 0; i < v.length; i++) {
            b.append(i == 0 ? "" : ",").append(v[i]);
        }
        b.append(']');
    }

    private static String firstLine(IOException e) {
        String m = String.valueOf(e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
