package m0.examples.embed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wire format alone, without the model: what is asked, what is refused and why, what is answered. */
class EmbedJsonTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oneTextAndABatch() throws Exception {
        EmbedJson.Ask one = EmbedJson.parse(utf8("{\"text\": \"héllo\"}"));
        assertEquals(List.of("héllo"), one.texts());
        assertFalse(one.batch());
        EmbedJson.Ask batch = EmbedJson.parse(utf8("{\"texts\": [\"a\", \"b\"]}"));
        assertEquals(List.of("a", "b"), batch.texts());
        assertTrue(batch.batch());
    }

    @Test
    void refusesWhatIsNotOneOfTheTwoForms() {
        for (String bad : List.of("{\"text\":", "[]", "\"text\"", "{}", "{\"text\": 3}", "{\"text\": \"a\", \"texts\": [\"b\"]}",
                "{\"texts\": []}", "{\"texts\": \"a\"}", "{\"texts\": [1]}", "", "{\"text\": \" \"}",
                "{\"texts\": [\"a\", \"\"]}")) {
            assertThrows(EmbedJson.BadRequest.class, () -> EmbedJson.parse(utf8(bad)), bad);
        }
        String many = "{\"texts\": [" + "\"a\",".repeat(EmbedJson.MAX_TEXTS) + "\"a\"]}";
        EmbedJson.BadRequest e = assertThrows(EmbedJson.BadRequest.class, () -> EmbedJson.parse(utf8(many)));
        assertTrue(e.getMessage().contains("1 to " + EmbedJson.MAX_TEXTS), e.getMessage());
    }

    @Test
    void answersEachFloatAsItReadsBack() throws Exception {
        float[] v = {0.1f, -1.0E-7f, 3.4028235E38f};
        String one = new String(EmbedJson.answer(EmbedJson.parse(utf8("{\"text\":\"x\"}")), List.of(v)), StandardCharsets.UTF_8);
        assertEquals("{\"embedding\":[0.1,-1.0E-7,3.4028235E38]}", one);
        String two = new String(EmbedJson.answer(EmbedJson.parse(utf8("{\"texts\":[\"x\",\"y\"]}")), List.of(v, v)),
                StandardCharsets.UTF_8);
        assertEquals("{\"embeddings\":[[0.1,-1.0E-7,3.4028235E38],[0.1,-1.0E-7,3.4028235E38]]}", two);
    }
}
