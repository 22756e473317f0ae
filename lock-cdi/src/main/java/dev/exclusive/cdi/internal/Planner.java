package dev.exclusive.cdi.internal;

import dev.exclusive.InvalidLockNameException;
import dev.exclusive.LockNames;
import dev.exclusive.OnLost;
import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.OnBusy;
import java.lang.reflect.Method;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;

/**
 * Turns an {@code @Exclusive} method of one bean class into its {@link MethodPlan}: each attribute from the first of
 * {@code <class>/<method>/Exclusive/<attr>} (bean class, then declaring class), {@code <class>/Exclusive/<attr>}
 * (the same two), {@code Exclusive/<attr>} in MicroProfile Config, the method's annotation, the class's annotation;
 * then validated. Every problem is added to
 * {@link Problems}, none is thrown, so that one deployment error lists them all.
 */
final class Planner {

    private static final Duration MAX_DURATION = Duration.ofDays(365L * 100);

    private final Config config;
    private final Set<String> storeNames;
    private final String defaultStore;
    private final Problems problems;

    Planner(Config config, Set<String> storeNames, String defaultStore, Problems problems) {
        this.config = config;
        this.storeNames = storeNames;
        this.defaultStore = defaultStore;
        this.problems = problems;
    }

    /**
     * @param beanClass the bean's class: it names the lock by default and comes first in config keys, before the
     *                  method's declaring class (which differs for an inherited method)
     * @param method    the intercepted method
     * @param onMethod  the method's annotation, or {@code null}
     * @param onClass   the class's annotation, or {@code null}
     * @return the plan, or {@code null} if the method has a problem (then added)
     */
    MethodPlan plan(Class<?> beanClass, Method method, Exclusive onMethod, Exclusive onClass) {
        Exclusive annotation = onMethod != null ? onMethod : onClass;
        Attributes attributes = new Attributes(beanClass, method, annotation);
        int before = problems.all().size();
        String display = display(beanClass, method);
        String where = "@Exclusive on " + display + ": ";

        String template = attributes.value("value", Exclusive::value, Function.identity());
        String storeAttribute = attributes.value("store", Exclusive::store, String::strip);
        ChronoUnit unit = attributes.value(
                "unit", Exclusive::unit, text -> ChronoUnit.valueOf(text.strip().toUpperCase(Locale.ROOT)));
        long ttlAmount = attributes.value("ttl", Exclusive::ttl, text -> Long.parseLong(text.strip()));
        long waitAmount = attributes.value("maxWait", Exclusive::maxWait, text -> Long.parseLong(text.strip()));
        long minHoldAmount = attributes.value("minHold", Exclusive::minHold, text -> Long.parseLong(text.strip()));
        OnBusy onBusy = attributes.value(
                "onBusy", Exclusive::onBusy, text -> OnBusy.valueOf(text.strip().toUpperCase(Locale.ROOT)));
        boolean autoExtend = attributes.value("autoExtend", Exclusive::autoExtend, Planner::parseBoolean);
        OnLost onLost = attributes.value(
                "onLost", Exclusive::onLost, text -> OnLost.valueOf(text.strip().toUpperCase(Locale.ROOT)));

        String storeName = storeAttribute.isEmpty() ? defaultStore : storeAttribute;
        if (!storeAttribute.isEmpty() && !storeNames.contains(storeAttribute)) {
            problems.add(where + "unknown store '" + storeAttribute + "'" + attributes.source("store")
                    + "; configured stores: " + String.join(", ", storeNames));
        }
        Duration ttl = duration(where, "ttl", ttlAmount, unit, attributes);
        if (ttl != null && (ttl.compareTo(Duration.ofMillis(1)) < 0 || ttl.compareTo(MAX_DURATION) > 0)) {
            problems.add(where + "ttl must be between 1 ms and 100 years, got " + ttlAmount + " " + unit.name()
                    + attributes.source("ttl"));
        }
        Duration maxWait = duration(where, "maxWait", waitAmount, unit, attributes);
        if (maxWait != null && (maxWait.isNegative() || maxWait.compareTo(MAX_DURATION) > 0)) {
            problems.add(where + "maxWait must be between 0 and 100 years, got " + waitAmount + " " + unit.name()
                    + attributes.source("maxWait"));
        }
        // 0, the default, means none in any unit: no second "0 MONTHS is not a duration" next to ttl's
        Duration minHold =
                minHoldAmount == 0 ? Duration.ZERO : duration(where, "minHold", minHoldAmount, unit, attributes);
        if (minHold != null && ttl != null && (minHold.isNegative() || minHold.compareTo(ttl) > 0)) {
            problems.add(where + "minHold must be between 0 and the ttl (" + ttlAmount + " " + unit.name()
                    + attributes.source("ttl") + "), got " + minHoldAmount + " " + unit.name()
                    + attributes.source("minHold") + "; a hold cannot last at least longer than its lease: lower"
                    + " minHold or raise ttl");
        }
        NameTemplate name = template(where, template, beanClass, method, storeName, attributes);
        ReturnShape returns = ReturnShape.of(method);
        if (returns.stage() && !returns.wrapsStage() && onBusy == OnBusy.SKIP) {
            problems.add(where + "onBusy = SKIP needs a return type that a CompletableFuture fits, got "
                    + method.getReturnType().getName() + "; declare CompletionStage or CompletableFuture, or use"
                    + " onBusy = THROW");
        }
        if (onLost == OnLost.INTERRUPT && !autoExtend) {
            problems.add(where + "onLost = INTERRUPT" + attributes.source("onLost") + " needs autoExtend = true: only"
                    + " a renewal finds the lease gone while the method runs, so without one nothing would ever"
                    + " interrupt it; set autoExtend = true, or use onLost = ROLLBACK (checked when the method"
                    + " returns)");
        }
        if (returns.stage() && onLost == OnLost.INTERRUPT) {
            problems.add(where + "onLost = INTERRUPT" + attributes.source("onLost") + " cannot stop the work of a"
                    + " method returning " + method.getReturnType().getName() + ": the stage completes on threads"
                    + " the interceptor does not know; use onLost = ROLLBACK (the stage then fails with"
                    + " LockLostException) or LOG");
        }
        if (returns.stage() && !returns.wrapsStage() && onLost == OnLost.ROLLBACK) {
            problems.add(where + "onLost = ROLLBACK" + attributes.source("onLost") + " needs a return type that a"
                    + " CompletableFuture fits, to fail the stage with LockLostException, got "
                    + method.getReturnType().getName() + "; declare CompletionStage or CompletableFuture, or use"
                    + " onLost = LOG");
        }
        if (problems.all().size() > before) {
            return null;
        }
        return new MethodPlan(
                beanClass,
                method,
                display,
                beanClass.getSimpleName() + "#" + method.getName(),
                name,
                storeName,
                ttl,
                maxWait,
                minHold,
                onBusy,
                autoExtend,
                onLost,
                returns,
                null);
    }

    private NameTemplate template(
            String where, String template, Class<?> beanClass, Method method, String storeName, Attributes attributes) {
        String effective = template.isEmpty() ? beanClass.getName() + "." + method.getName() : template;
        try {
            NameTemplate compiled = NameTemplate.compile(effective, method, where.substring(0, where.length() - 2));
            if (compiled.constantName() != null) {
                LockNames.requireValid(compiled.constantName(), storeName);
            }
            return compiled;
        } catch (NameTemplate.InvalidTemplateException e) {
            problems.add(
                    where + "name template \"" + effective + "\"" + attributes.source("value") + ": " + e.getMessage());
        } catch (InvalidLockNameException e) {
            problems.add(where + e.getMessage() + attributes.source("value"));
        }
        return null;
    }

    private Duration duration(String where, String attribute, long amount, ChronoUnit unit, Attributes attributes) {
        try {
            return Duration.of(amount, unit);
        } catch (DateTimeException | ArithmeticException e) {
            problems.add(where + attribute + " " + amount + " " + unit.name() + attributes.source(attribute)
                    + " is not a duration: " + e.getMessage() + "; use a unit from NANOS to DAYS");
            return null;
        }
    }

    private static boolean parseBoolean(String text) {
        String value = text.strip();
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new IllegalArgumentException("expected true or false");
    }

    /** @return {@code com.acme.JobA#run(String)}, with {@code  (declared in com.acme.Job)} for an inherited method */
    static String display(Class<?> beanClass, Method method) {
        String declared = method.getDeclaringClass() == beanClass
                ? ""
                : " (declared in " + method.getDeclaringClass().getName() + ")";
        return beanClass.getName() + "#" + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"))
                + declared;
    }

    /** The attribute values of one method, each from its first source, remembering which config key won. */
    private final class Attributes {

        private final List<String> prefixes;
        private final Exclusive annotation;
        private final String display;
        private final Map<String, String> keys = new HashMap<>();

        /**
         * Keys in order: the method of the bean class, the method of its declaring class (what MicroProfile Fault
         * Tolerance reads), then the same two classes without the method, then the global key.
         */
        Attributes(Class<?> beanClass, Method method, Exclusive annotation) {
            this.display = display(beanClass, method);
            this.annotation = annotation;
            Set<String> classes = new LinkedHashSet<>(
                    List.of(beanClass.getName(), method.getDeclaringClass().getName()));
            Set<String> ordered = new LinkedHashSet<>();
            classes.forEach(name -> ordered.add(name + "/" + method.getName() + "/Exclusive/"));
            classes.forEach(name -> ordered.add(name + "/Exclusive/"));
            ordered.add("Exclusive/");
            this.prefixes = List.copyOf(ordered);
        }

        <T> T value(String attribute, Function<Exclusive, T> fromAnnotation, Function<String, T> parse) {
            for (String prefix : prefixes) {
                String key = prefix + attribute;
                Optional<String> text = config.getOptionalValue(key, String.class);
                if (text.isPresent()) {
                    keys.put(attribute, key);
                    try {
                        return parse.apply(text.get());
                    } catch (RuntimeException e) {
                        problems.add(key + ": '" + text.get() + "' is not a valid " + attribute + " for @Exclusive on "
                                + display + hint(attribute));
                        break;
                    }
                }
            }
            return fromAnnotation.apply(annotation);
        }

        /** @return {@code " (from config key K)"} if a config key gave the attribute, else empty */
        String source(String attribute) {
            String key = keys.get(attribute);
            return key == null ? "" : " (from config key " + key + ")";
        }

        private String hint(String attribute) {
            return switch (attribute) {
                case "ttl", "maxWait", "minHold" -> "; expected a whole number in the unit";
                case "unit" -> "; expected a ChronoUnit such as MILLIS, SECONDS or MINUTES";
                case "onBusy" -> "; expected THROW or SKIP";
                case "autoExtend" -> "; expected true or false";
                case "onLost" -> "; expected LOG, INTERRUPT or ROLLBACK";
                default -> "";
            };
        }
    }
}
