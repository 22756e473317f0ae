package dev.exclusive.redis;

/**
 * How lock names become Redis keys and scan patterns.
 *
 * <p>A lock has two keys, {@code exclusive:lock:{<escaped name>}} (the lease) and
 * {@code exclusive:fence:{<escaped name>}} (the fence counter). The escaped name is the hash tag, so Redis
 * Cluster puts both keys in one slot and one script may touch both. Escaping makes the tag end where this class
 * says, whatever the name holds: {@code %} becomes {@code %25}, <code>}</code> becomes {@code %7D}, and a lone
 * surrogate (which UTF-8 cannot carry) becomes {@code %uXXXX}. The escape works character by character, so it
 * is injective (two names, two keys) and keeps prefixes: the escape of a prefix is a prefix of the escape of
 * the name, which lets a {@code SCAN MATCH} find a prefix's locks.
 */
final class RedisKeys {

    private static final String LOCK = "exclusive:lock:{";
    private static final String FENCE = "exclusive:fence:{";
    private static final String RECEIPT = "exclusive:receipt:{";

    /**
     * The store's audit trail: one list for every lock of the Redis (the registry's store prefix is part of each
     * record's lock name), a single key, so a Cluster keeps it in one slot.
     */
    static final String AUDIT = "exclusive:audit";

    /** The channel that release and force-release publish the lease key on, when another instance waits. */
    static final String RELEASED_CHANNEL = "exclusive:released";

    /** How sharded release channels start; the lock's hash tag follows (see {@link #releasedChannel}). */
    private static final String SHARD_CHANNEL = "exclusive:released:{";

    private RedisKeys() {}

    /**
     * @return the sharded channel (Cluster on Redis 7+) that a release of {@code name} is published on:
     *         {@code exclusive:released:{<escaped name>}}, whose hash tag is its keys', so it lives in their slot
     *         (a script may only {@code SPUBLISH} to its keys' slot, and only that slot's shard hears it)
     */
    static String releasedChannel(String name) {
        return SHARD_CHANNEL + escape(name) + "}";
    }

    /** @return the key of the lease of {@code name} */
    static String lockKey(String name) {
        return LOCK + escape(name) + "}";
    }

    /** @return the key of the fence counter of {@code name}, in the same hash slot as {@link #lockKey} */
    static String fenceKey(String name) {
        return FENCE + escape(name) + "}";
    }

    /**
     * @param call one release call's id, unique among the calls of every store instance
     * @return the key where a release script records what that call did, in the same hash slot as {@link #lockKey},
     *         so that the same call sent again by a retrying client answers the same (see {@code release.lua})
     */
    static String receiptKey(String name, String call) {
        return RECEIPT + escape(name) + "}" + call;
    }

    /**
     * @param prefix a name prefix, taken literally
     * @return a {@code SCAN MATCH} pattern for the lease keys of every name starting with {@code prefix}; it
     *         may match more (when the prefix ends inside a surrogate pair), never less
     */
    static String scanPattern(String prefix) {
        String literal = prefix;
        if (!literal.isEmpty() && Character.isHighSurrogate(literal.charAt(literal.length() - 1))) {
            literal = literal.substring(0, literal.length() - 1); // the name may pair it; its escape differs
        }
        return globEscape(LOCK + escape(literal)) + "*}";
    }

    /**
     * @param key a key that a scan found
     * @return the lock name whose lease key it is, or {@code null} if it is not one
     */
    static String nameOf(String key) {
        if (!key.startsWith(LOCK) || !key.endsWith("}") || key.indexOf('}') != key.length() - 1) {
            return null;
        }
        String escaped = key.substring(LOCK.length(), key.length() - 1);
        StringBuilder name = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '%') {
                name.append(c);
            } else if (escaped.startsWith("%25", i)) {
                name.append('%');
                i += 2;
            } else if (escaped.startsWith("%7D", i)) {
                name.append('}');
                i += 2;
            } else if (escaped.startsWith("%u", i) && i + 6 <= escaped.length()) {
                try {
                    name.append((char) Integer.parseInt(escaped.substring(i + 2, i + 6), 16));
                } catch (NumberFormatException e) {
                    return null;
                }
                i += 5;
            } else {
                return null;
            }
        }
        return name.toString();
    }

    /**
     * @param url a Redis URL
     * @return the URL with port 6379 if it names none (Jedis requires one)
     */
    static java.net.URI withDefaultPort(java.net.URI url) {
        if (url.getHost() == null || url.getPort() != -1) {
            return url;
        }
        // from the raw parts: the decoding constructor would turn an encoded ':' (%3A) of the user info into a
        // separator between user and password
        String raw = url.getScheme() + "://" + (url.getRawUserInfo() == null ? "" : url.getRawUserInfo() + "@")
                + url.getHost() + ":6379" + (url.getRawPath() == null ? "" : url.getRawPath())
                + (url.getRawQuery() == null ? "" : "?" + url.getRawQuery())
                + (url.getRawFragment() == null ? "" : "#" + url.getRawFragment());
        try {
            return new java.net.URI(raw);
        } catch (java.net.URISyntaxException e) {
            return url;
        }
    }

    /** @return {@code name} with the characters that would end the hash tag or break UTF-8 escaped */
    static String escape(String name) {
        StringBuilder escaped = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            String replacement = null;
            if (c == '%') {
                replacement = "%25";
            } else if (c == '}') {
                replacement = "%7D";
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                    if (escaped != null) {
                        escaped.append(c).append(name.charAt(i + 1));
                    }
                    i++;
                    continue;
                }
                replacement = String.format("%%u%04X", (int) c);
            } else if (Character.isLowSurrogate(c)) {
                replacement = String.format("%%u%04X", (int) c);
            }
            if (replacement != null && escaped == null) {
                escaped = new StringBuilder(name.length() + 16).append(name, 0, i);
            }
            if (escaped != null) {
                escaped.append(replacement != null ? replacement : String.valueOf(c));
            }
        }
        return escaped == null ? name : escaped.toString();
    }

    /**
     * @param owner an owner id
     * @return how a lease string starts for it: the owner with {@code %} and line feeds escaped (as {@code %25}
     *         and {@code %0A}), so that the first line feed of a lease ends its owner, then a line feed
     */
    static String ownerField(String owner) {
        if (owner.indexOf('%') < 0 && owner.indexOf('\n') < 0) {
            return owner + '\n';
        }
        return owner.replace("%", "%25").replace("\n", "%0A") + '\n';
    }

    /** @return the owner id an escaped owner field (without its line feed) stands for */
    static String unescapeOwner(String escaped) {
        return escaped.indexOf('%') < 0 ? escaped : escaped.replace("%0A", "\n").replace("%25", "%");
    }

    /** @return a new random id for a store instance, as {@code wait.lua} records waiters: 12 URL-safe characters */
    static String instanceId() {
        byte[] random = new byte[9];
        new java.security.SecureRandom().nextBytes(random);
        return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    /** @return {@code text} with Redis glob characters ({@code * ? [ ] \}) escaped by a backslash */
    static String globEscape(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
