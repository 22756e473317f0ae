package dev.exclusive.cdi.internal;

import dev.exclusive.InvalidLockNameException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A lock name template compiled against one method: literal text and placeholders ({@code {name}}, {@code {0}},
 * {@code {order.id}}), each placeholder resolved at deployment to a parameter index and a chain of accessor
 * methods, so that rendering a name is array access and calls, never a lookup by name.
 *
 * <p>Rendering is injective: two calls get the same name only if every placeholder has equal text. With two or
 * more placeholders, each value is percent-escaped (UTF-8, {@code %3A}) for {@code %} and for the first character
 * of every separator between two placeholders; then a value ends at the first occurrence of the next separator's
 * first character, so the values can be read back. Text before the first and after the last placeholder is fixed
 * and needs no escaping, which is why a template with one placeholder renders its value unchanged. Placeholders
 * that touch ({@code {a}{b}}) have no separator and are refused at deployment. A {@code null} value has no text
 * that differs from every string and is refused at call time.
 */
final class NameTemplate {

    private final String template;
    private final String constant;
    private final Part[] parts;
    private final String owner;

    /** Code points escaped in placeholder values; empty: values render as they are. */
    private final int[] escaped;

    private NameTemplate(String template, String constant, Part[] parts, String owner, int[] escaped) {
        this.template = template;
        this.constant = constant;
        this.parts = parts;
        this.owner = owner;
        this.escaped = escaped;
    }

    /**
     * One piece of a template: literal text ({@code parameter < 0}) or a parameter with accessors; {@code checked}
     * when the value's declared type cannot tell at deployment whether its text is its own (an interface, a class that
     * is not final, {@code Object}: a subclass may have a {@code toString()}), so each call checks the value's class.
     */
    private record Part(String text, int parameter, Method[] accessors, boolean checked) {}

    /** Whether a class's text is its identity: an array, or a class that inherits {@code Object.toString()}. */
    private static final ClassValue<Boolean> IDENTITY_TEXT = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            if (type.isArray()) {
                return true;
            }
            try {
                return type.getMethod("toString").getDeclaringClass() == Object.class;
            } catch (NoSuchMethodException e) {
                return false; // every class has one; an interface's type has none, but no value is of it
            }
        }
    };

    /** A template that cannot work for its method; the message says why and how to fix it. */
    static final class InvalidTemplateException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidTemplateException(String message) {
            super(message);
        }
    }

    /**
     * @param template the {@code @Exclusive} value, non-empty
     * @param method   the method whose parameters the placeholders name
     * @param owner    {@code @Exclusive on com.acme.Imports#run(String)}, for the call-time error of a null value
     * @return the compiled template
     * @throws InvalidTemplateException naming the bad placeholder and the fix
     */
    static NameTemplate compile(String template, Method method, String owner) throws InvalidTemplateException {
        List<Part> parts = new ArrayList<>();
        int at = 0;
        while (at < template.length()) {
            int open = template.indexOf('{', at);
            int close = template.indexOf('}', at);
            if (close >= 0 && (open < 0 || close < open)) {
                throw new InvalidTemplateException("'}' at position " + close + " closes no placeholder");
            }
            if (open < 0) {
                parts.add(new Part(template.substring(at), -1, null, false));
                break;
            }
            if (open > at) {
                parts.add(new Part(template.substring(at, open), -1, null, false));
            }
            if (close < 0) {
                throw new InvalidTemplateException("'{' at position " + open + " is not closed");
            }
            parts.add(placeholder(template.substring(open + 1, close), method));
            at = close + 1;
        }
        boolean constant = parts.stream().allMatch(part -> part.parameter() < 0);
        return new NameTemplate(
                template, constant ? template : null, parts.toArray(Part[]::new), owner, escaped(parts));
    }

    /**
     * @return {@code %} and the first character of each separator between two placeholders, or none if there is
     *         no such separator
     * @throws InvalidTemplateException if two placeholders touch
     */
    private static int[] escaped(List<Part> parts) throws InvalidTemplateException {
        Set<Integer> escaped = new TreeSet<>();
        for (int i = 1; i < parts.size(); i++) {
            Part previous = parts.get(i - 1);
            Part part = parts.get(i);
            if (previous.parameter() < 0) {
                continue;
            }
            if (part.parameter() >= 0) {
                throw new InvalidTemplateException("placeholders {" + previous.text() + "} and {" + part.text()
                        + "} touch, so two calls could render the same name; put a separator such as ':' between"
                        + " them");
            }
            if (i + 1 < parts.size()) {
                escaped.add(part.text().codePointAt(0));
            }
        }
        if (!escaped.isEmpty()) {
            escaped.add((int) '%');
        }
        return escaped.stream().mapToInt(Integer::intValue).toArray();
    }

    private static Part placeholder(String expression, Method method) throws InvalidTemplateException {
        String[] path = expression.split("\\.", -1);
        Parameter[] parameters = method.getParameters();
        int index = parameterIndex(path[0], parameters, expression);
        Method[] accessors = new Method[path.length - 1];
        Class<?> type = parameters[index].getType();
        String walked = path[0];
        for (int i = 1; i < path.length; i++) {
            accessors[i - 1] = accessor(type, path[i], walked, expression);
            type = accessors[i - 1].getReturnType();
            walked += "." + path[i];
        }
        // a final class (records and enums included) is what every value is; any other may be a subclass at run time
        boolean decidable = type.isPrimitive() || type.isArray() || Modifier.isFinal(type.getModifiers());
        if (decidable && IDENTITY_TEXT.get(type)) {
            throw new InvalidTemplateException(identityText(expression, type));
        }
        return new Part(expression, index, accessors, !decidable);
    }

    /** @return why a placeholder of {@code type} cannot name a lock: its text is its identity */
    private static String identityText(String expression, Class<?> type) {
        if (type.isArray()) {
            return "placeholder {" + expression + "} is an array (" + type.getSimpleName() + "), whose text is its"
                    + " identity: equal values would name different locks; name an element's property, or pass a List";
        }
        return "placeholder {" + expression + "} is a " + type.getName() + ", which has no toString() of its own, so"
                + " its text is its identity: equal values would name different locks; name a property such as {"
                + expression + ".id}, or give the class a toString()";
    }

    private static int parameterIndex(String head, Parameter[] parameters, String expression)
            throws InvalidTemplateException {
        if (head.isEmpty()) {
            throw new InvalidTemplateException("placeholder {" + expression + "} names no parameter");
        }
        if (head.chars().allMatch(Character::isDigit)) {
            int index = head.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(head);
            if (index >= parameters.length) {
                throw new InvalidTemplateException("placeholder {" + expression + "} refers to parameter " + head
                        + " but the method has " + parameters.length + " parameter"
                        + (parameters.length == 1 ? "" : "s") + " (positions count from 0)");
            }
            return index;
        }
        for (int i = 0; i < parameters.length; i++) {
            if (parameters[i].isNamePresent() && parameters[i].getName().equals(head)) {
                return i;
            }
        }
        String names = Arrays.stream(parameters).map(Parameter::getName).collect(Collectors.joining(", "));
        boolean namesCompiled = parameters.length == 0 || parameters[0].isNamePresent();
        throw new InvalidTemplateException(
                "placeholder {" + expression + "} matches no parameter; parameters: "
                        + (names.isEmpty() ? "none" : names)
                        + (namesCompiled
                                ? "; use one of these names or a position such as {0}"
                                : "; parameter names are not compiled in: compile with -parameters"
                                        + " (maven-compiler-plugin <parameters>true</parameters>) or use a position such as {0}"));
    }

    private static Method accessor(Class<?> type, String property, String owner, String expression)
            throws InvalidTemplateException {
        if (property.isEmpty()) {
            throw new InvalidTemplateException("placeholder {" + expression + "} has an empty property name");
        }
        Method found = null;
        if (type.isRecord()) {
            for (RecordComponent component : type.getRecordComponents()) {
                if (component.getName().equals(property)) {
                    found = component.getAccessor();
                }
            }
        }
        String capitalized = Character.toUpperCase(property.charAt(0)) + property.substring(1);
        if (found == null) {
            found = getter(type, "get" + capitalized);
        }
        if (found == null) {
            Method is = getter(type, "is" + capitalized);
            if (is != null && (is.getReturnType() == boolean.class || is.getReturnType() == Boolean.class)) {
                found = is;
            }
        }
        if (found == null || found.getReturnType() == void.class) {
            throw new InvalidTemplateException("placeholder {" + expression + "}: " + owner + " is a "
                    + type.getName() + ", which has no property '" + property + "' (no public get" + capitalized
                    + "() or is" + capitalized + "(), and no record component " + property + ")");
        }
        try {
            found.setAccessible(true);
        } catch (RuntimeException e) {
            throw new InvalidTemplateException(
                    "placeholder {" + expression + "}: " + found + " cannot be called: " + e.getMessage());
        }
        return found;
    }

    private static Method getter(Class<?> type, String name) {
        try {
            Method method = type.getMethod(name);
            return Modifier.isStatic(method.getModifiers()) ? null : method;
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** @return the name as written, for messages */
    String template() {
        return template;
    }

    /** @return the name if the template has no placeholder, else {@code null} */
    String constantName() {
        return constant;
    }

    /**
     * @param arguments the call's arguments
     * @return the lock name for this call
     * @throws InvalidLockNameException if a placeholder's value, or a value on the way to a property, is
     *                                  {@code null}; the message names the placeholder, the part that is null and
     *                                  the method
     */
    String render(Object[] arguments) {
        if (constant != null) {
            return constant;
        }
        StringBuilder name = new StringBuilder(template.length() + 16);
        for (Part part : parts) {
            if (part.parameter() < 0) {
                name.append(part.text());
            } else {
                Object value = resolve(part, arguments[part.parameter()]);
                if (part.checked() && IDENTITY_TEXT.get(value.getClass())) {
                    throw new InvalidLockNameException(
                            owner + ": lock name template \"" + template + "\" has no stable text for this call: "
                                    + identityText(part.text(), value.getClass()),
                            null,
                            null);
                }
                appendEscaped(name, String.valueOf(value));
            }
        }
        return name.toString();
    }

    private void appendEscaped(StringBuilder name, String value) {
        if (escaped.length == 0) {
            name.append(value);
            return;
        }
        value.codePoints().forEach(codePoint -> {
            if (Arrays.binarySearch(escaped, codePoint) < 0) {
                name.appendCodePoint(codePoint);
                return;
            }
            for (byte b : new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8)) {
                name.append('%')
                        .append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
                        .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
            }
        });
    }

    private Object resolve(Part part, Object value) {
        String[] path = part.text().split("\\.", -1);
        Object current = value;
        for (int i = 0; i <= part.accessors().length; i++) {
            if (current == null) {
                throw nullValue(part, String.join(".", Arrays.copyOf(path, i + 1)));
            }
            if (i == part.accessors().length) {
                return current;
            }
            Method accessor = part.accessors()[i];
            try {
                current = accessor.invoke(current);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                if (cause instanceof RuntimeException runtime) {
                    throw runtime;
                }
                if (cause instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(
                        "Lock name placeholder {" + part.text() + "}: " + accessor + " failed", cause);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(
                        "Lock name placeholder {" + part.text() + "}: " + accessor + " is not accessible", e);
            }
        }
        return current;
    }

    private InvalidLockNameException nullValue(Part part, String nullPart) {
        return new InvalidLockNameException(
                owner + ": lock name template \"" + template + "\" has no text for {" + part.text() + "}: " + nullPart
                        + " is null in this call; Exclusive does not render null, which would name one lock for every"
                        + " null: pass a value, or leave it out of the template",
                null,
                null);
    }
}
