// What each application got (applications/*/dependencies.txt), checked. Every dev.exclusive jar among them must be
// this build's own: resolved from the consumers' repository, and the same bytes as the jar the reactor packaged.
def reactorJars = ['lock-api': lockApiJar, 'lock-cdi': lockCdiJar, 'lock-otel': lockOtelJar, 'lock-redis': lockRedisJar]

def dependenciesOf = { String application ->
    def listed = new File(basedir, "${application}/dependencies.txt").readLines()
            .collect { it.trim().split(' -- ')[0].split(':') }
            .findAll { it.length >= 6 }
            .collect { [groupId: it[0], artifactId: it[1], version: it[3], file: new File(it[5])] }
    assert !listed.isEmpty(): "${application} lists no dependency"
    listed.findAll { it.groupId == 'dev.exclusive' }.each { dependency ->
        def reactorJar = reactorJars[dependency.artifactId]
        assert reactorJar != null: "${application} got ${dependency.artifactId}, which this check does not install"
        assert dependency.file.canonicalPath.startsWith(localRepositoryPath.canonicalPath):
                "${application} got ${dependency.artifactId} from ${dependency.file}, not from ${localRepositoryPath}"
        assert dependency.file.bytes == new File(reactorJar).bytes:
                "${application} got ${dependency.file}, which is not the jar this build packaged (${reactorJar})"
    }
    println "[consumer] ${application}: " + listed.collect { "${it.groupId}:${it.artifactId}:${it.version}" }.join(', ')
    listed.collect { "${it.groupId}:${it.artifactId}" as String }
}
def storeLibraries = { List<String> artifacts ->
    artifacts.findAll { it.startsWith('redis.clients') || it.startsWith('org.hibernate') || it.startsWith('com.vaadin') }
}

// The memory and file stores (lock-api alone): lock-api and nothing else.
def apiOnly = dependenciesOf('api-only')
assert storeLibraries(apiOnly).isEmpty(): "lock-api brings ${storeLibraries(apiOnly)}"
assert apiOnly == ['dev.exclusive:lock-api']

// @Exclusive on the memory and file stores (lock-cdi alone): lock-cdi, lock-api and lock-otel (metrics, used only
// where the server shows the OpenTelemetry API). No store library, no console, and none of the APIs the server
// provides (Jakarta EE, MicroProfile and OpenTelemetry are provided; MicroProfile Health and OpenTelemetry optional).
def cdiOnly = dependenciesOf('cdi-only')
assert storeLibraries(cdiOnly).isEmpty(): "lock-cdi brings ${storeLibraries(cdiOnly)}"
assert cdiOnly.toSet() == ['dev.exclusive:lock-cdi', 'dev.exclusive:lock-api', 'dev.exclusive:lock-otel'].toSet()

// The control: the Redis store does bring Jedis, so these lists are the full transitive ones that would show a
// store library if our poms leaked one.
def redis = dependenciesOf('redis-control')
assert redis.containsAll(['dev.exclusive:lock-redis', 'dev.exclusive:lock-api', 'redis.clients:jedis']): redis
assert !storeLibraries(redis).isEmpty()
