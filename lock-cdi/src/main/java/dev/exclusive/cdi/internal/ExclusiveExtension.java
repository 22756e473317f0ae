package dev.exclusive.cdi.internal;

import dev.exclusive.LockListener;
import dev.exclusive.LockRegistry;
import dev.exclusive.LockStatistics;
import dev.exclusive.OnLost;
import dev.exclusive.cdi.Exclusive;
import dev.exclusive.cdi.ExclusiveThreads;
import dev.exclusive.cdi.Store;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Annotated;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.BeforeShutdown;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.Interceptor;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.inject.Singleton;
import java.lang.System.Logger.Level;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The portable extension: reads {@code exclusive.*} from MicroProfile Config, builds the stores, plans every
 * {@code @Exclusive} method once, fails deployment with one message listing every problem, registers the
 * {@code LockRegistry} beans (and the readiness checks when MicroProfile Health is present), and closes the stores
 * at shutdown.
 *
 * <p>Order: {@code ProcessManagedBean} (managed beans and EJBs) collects the annotated methods of each bean class;
 * {@code AfterBeanDiscovery} reads the configuration, builds the stores (their threads from
 * {@link ContainerThreads}, also the {@link ExclusiveThreads @ExclusiveThreads} bean) and one plan per bean class and
 * method, and adds beans or the one definition error; {@code AfterDeploymentValidation} resolves which lock events
 * have observers, asks the container for the application's name (the default prefix of shared stores), and starts
 * the registry with an event bridge only if some events are observed, and always with the one {@link LockStatistics}
 * that is also injectable ({@code @Inject LockStatistics}, one per application); {@code @Initialized(ApplicationScoped.class)}
 * looks the container's thread factory up; {@code BeforeShutdown} closes the registry, which stops its threads and
 * the stores.
 */
public class ExclusiveExtension implements Extension {

    private static final System.Logger LOG = System.getLogger("dev.exclusive.cdi");

    /**
     * An {@code @Exclusive} method of one bean class as discovered, before configuration is read. An inherited method
     * is a candidate once for each bean class that inherits it: their annotations and default names differ.
     */
    private record Candidate(Class<?> beanClass, Method method, Exclusive onMethod, Exclusive onClass) {}

    private final List<Candidate> candidates = new ArrayList<>();
    private ConfiguredStores stores;
    private ContainerThreads threads;
    private Map<Class<?>, Map<Method, MethodPlan>> plans;
    private volatile LockRegistry registry;
    private volatile LockedInvocations invocations;
    /** OpenTelemetry metrics, attached when the application starts; {@code null} without the OpenTelemetry API. */
    private TelemetryListener telemetry;
    /** Contention statistics for the console: always a listener of the registry, and an injectable bean. */
    private final LockStatistics statistics = new LockStatistics();

    private BeanManager telemetryBeans;

    void addInterceptor(@Observes BeforeBeanDiscovery event, BeanManager beanManager) {
        event.addAnnotatedType(
                beanManager.createAnnotatedType(ExclusiveInterceptor.class), ExclusiveInterceptor.class.getName());
        event.addAnnotatedType(
                beanManager.createAnnotatedType(ExclusiveTransactionInterceptor.class),
                ExclusiveTransactionInterceptor.class.getName());
    }

    <T> void collect(@Observes ProcessManagedBean<T> event, BeanManager beans) {
        if (event.getBean() instanceof Interceptor<?>) {
            return; // an interceptor carries its binding, but is not intercepted
        }
        AnnotatedType<T> type = event.getAnnotatedBeanClass();
        Exclusive onClass = exclusiveOn(type, beans);
        for (AnnotatedMethod<? super T> method : type.getMethods()) {
            Exclusive onMethod = exclusiveOn(method, beans);
            Method java = method.getJavaMember();
            if (onMethod != null || onClass != null && isBusinessMethod(java)) {
                candidates.add(new Candidate(type.getJavaClass(), java, onMethod, onClass));
            }
        }
    }

    /**
     * The {@code @Exclusive} of a class or method as the container resolves interceptor bindings: written on it, or
     * declared on one of its stereotypes or on another interceptor binding it carries, at any depth.
     *
     * @return it, or {@code null}
     */
    private static Exclusive exclusiveOn(Annotated annotated, BeanManager beans) {
        Exclusive direct = annotated.getAnnotation(Exclusive.class);
        return direct != null ? direct : carried(annotated.getAnnotations(), beans, new HashSet<>());
    }

    private static Exclusive carried(Set<Annotation> annotations, BeanManager beans, Set<Class<?>> seen) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof Exclusive exclusive) {
                return exclusive;
            }
        }
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> kind = annotation.annotationType();
            if (!seen.add(kind)) {
                continue;
            }
            Set<Annotation> definition = beans.isStereotype(kind)
                    ? beans.getStereotypeDefinition(kind)
                    : beans.isInterceptorBinding(kind) ? beans.getInterceptorBindingDefinition(kind) : Set.of();
            Exclusive found = carried(definition, beans, seen);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private static boolean isBusinessMethod(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isStatic(modifiers)
                && !Modifier.isPrivate(modifiers)
                && !method.isSynthetic()
                && !method.isBridge()
                && method.getDeclaringClass() != Object.class;
    }

    void registerBeans(@Observes AfterBeanDiscovery event) {
        ClassLoader loader = classLoader();
        Config config = ConfigProvider.getConfig(loader);
        Problems problems = new Problems();
        LockConfiguration configuration = LockConfiguration.read(config, problems);
        threads = new ContainerThreads(loader);
        ConfiguredStores built = ConfiguredStores.build(configuration, loader, threads, problems);
        Planner planner = new Planner(config, ConfiguredStores.namesIn(configuration), built.defaultStore(), problems);
        Map<Class<?>, Map<Method, MethodPlan>> planned = new LinkedHashMap<>();
        for (Candidate candidate : candidates) {
            MethodPlan plan =
                    planner.plan(candidate.beanClass(), candidate.method(), candidate.onMethod(), candidate.onClass());
            if (plan != null) {
                MethodPlan earlier = planned.computeIfAbsent(plan.beanClass(), type -> new LinkedHashMap<>())
                        .putIfAbsent(plan.method(), plan);
                if (earlier != null && !earlier.toString().equals(plan.toString())) {
                    problems.add("@Exclusive on " + plan.display() + ": two beans of class "
                            + plan.beanClass().getName() + " give it different plans (" + earlier + "; " + plan
                            + "), and a call cannot tell them apart; give each bean a class of its own");
                }
            }
        }
        candidates.clear();
        if (!problems.isEmpty()) {
            built.close();
            event.addDefinitionError(problems.toException());
            return;
        }
        stores = built;
        plans = planned;
        event.<LockRegistry>addBean()
                .id(ExclusiveExtension.class.getName() + ".default")
                .beanClass(ExclusiveExtension.class)
                .types(LockRegistry.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(Dependent.class)
                .createWith(context -> registry());
        for (String name : built.stores().keySet()) {
            event.<LockRegistry>addBean()
                    .id(ExclusiveExtension.class.getName() + ".store." + name)
                    .beanClass(ExclusiveExtension.class)
                    .types(LockRegistry.class, Object.class)
                    .qualifiers(Store.Literal.of(name), Any.Literal.INSTANCE)
                    .scope(Dependent.class)
                    .createWith(context -> registry().store(name));
        }
        // @Singleton: one instance per application like @ApplicationScoped, without a proxy (the class is final).
        event.<LockStatistics>addBean()
                .id(ExclusiveExtension.class.getName() + ".statistics")
                .beanClass(ExclusiveExtension.class)
                .types(LockStatistics.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(Singleton.class)
                .createWith(context -> statistics);
        event.<ThreadFactory>addBean()
                .id(ExclusiveExtension.class.getName() + ".threads")
                .beanClass(ExclusiveExtension.class)
                .types(ThreadFactory.class, Object.class)
                .qualifiers(ExclusiveThreads.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(Dependent.class)
                .createWith(context -> threads);
        if (healthApiPresent(loader)) {
            StoreHealthChecks.register(event, built);
        }
    }

    void start(@Observes AfterDeploymentValidation event, BeanManager beanManager) {
        if (stores == null) {
            return;
        }
        ClassLoader loader = classLoader();
        threads.containerStarted(beanManager);
        Transactions transactions = Transactions.resolve(beanManager, loader);
        List<LockListener> listeners = new ArrayList<>(4);
        if (renewsUnderRollback(plans)) {
            LockListener lostLeases = transactions.lostLeases();
            if (lostLeases != null) {
                listeners.add(lostLeases); // first: the transaction is marked before observers hear of the loss
            }
        }
        EventBridge events = EventBridge.create(beanManager, loader);
        if (events != null) {
            listeners.add(events);
        }
        telemetry = TelemetryListener.ifApiPresent(loader);
        if (telemetry != null) {
            listeners.add(telemetry);
            telemetryBeans = beanManager;
        }
        listeners.add(statistics);
        LockRegistry started = stores.registry(listeners, ApplicationName.lookup());
        Map<Class<?>, Map<Method, MethodPlan>> bound = new HashMap<>();
        plans.forEach((beanClass, methods) -> {
            Map<Method, MethodPlan> byMethod = new HashMap<>();
            methods.forEach((method, plan) -> byMethod.put(method, plan.bind(started)));
            bound.put(beanClass, Map.copyOf(byMethod));
        });
        plans = null;
        invocations = new LockedInvocations(Map.copyOf(bound), transactions);
        registry = started;
    }

    /**
     * Looks the container's thread factory up as the application starts, on a thread that serves no user (see
     * {@link ContainerThreads}), rather than on the first call that needs a thread; and attaches the metrics to the
     * container's {@code OpenTelemetry}, an application-scoped bean usable from now on.
     */
    void applicationStarted(@Observes @Initialized(ApplicationScoped.class) Object application) {
        ContainerThreads started = threads;
        if (started != null && stores != null) {
            started.managed();
        }
        TelemetryListener metrics = telemetry;
        if (metrics != null && stores != null) {
            try {
                metrics.attach(telemetryBeans);
            } catch (RuntimeException | LinkageError e) {
                // metrics are an extra: the application and its locks run without them
                LOG.log(
                        Level.WARNING,
                        "Exclusive records no lock metrics: the OpenTelemetry bean could not be used",
                        e);
            }
        }
    }

    /** @return whether a renewal can find a hold lost that a transaction must not commit without */
    private static boolean renewsUnderRollback(Map<Class<?>, Map<Method, MethodPlan>> plans) {
        return plans.values().stream()
                .flatMap(methods -> methods.values().stream())
                .anyMatch(plan -> plan.autoExtend() && plan.onLost() == OnLost.ROLLBACK);
    }

    /**
     * Detaches the metrics, then closes the registry or the stores. Metrics that cannot be detached are logged: the
     * stores and their threads are closed all the same, and the shutdown goes on.
     */
    void stop(@Observes BeforeShutdown event) {
        TelemetryListener metrics = telemetry;
        if (metrics != null) {
            telemetry = null;
            try {
                metrics.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "Exclusive's lock metrics could not be detached at shutdown", e);
            }
        }
        LockRegistry running = registry;
        if (running != null) {
            registry = null;
            running.close();
        } else if (stores != null) {
            stores.close(); // built, but the container never started: no registry owns them
        }
        stores = null;
    }

    /** @return the registry over the default store; it is running once the container has started */
    LockRegistry registry() {
        LockRegistry running = registry;
        if (running == null) {
            throw new IllegalStateException("Exclusive's LockRegistry is not running: the container has not finished"
                    + " starting, or has shut down");
        }
        return running;
    }

    LockedInvocations invocations() {
        return invocations;
    }

    private static boolean healthApiPresent(ClassLoader loader) {
        try {
            Class.forName("org.eclipse.microprofile.health.HealthCheck", false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loader != null ? loader : ExclusiveExtension.class.getClassLoader();
    }
}
