package m0.server.http;

/**
 * RFC 9110's token characters and ASCII case folding: what {@link Request} and {@link Response}
 * check names with, and the server's parser too (one table for both sides of the API cut).
 */
final class HttpTokens {
    /** tchar: what a header name and a method may hold. */
    static final boolean[] TCHAR = new boolean[256];

    static {
        for (int c = '0'; c <= '9'; c++) TCHAR[c] = true;
        for (int c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
        for (int c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
    }

    private HttpTokens() {
    }

    static boolean isTchar(byte b) {
        return TCHAR[b & 0xff];
    }

    static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + 32 : c;
    }
}
