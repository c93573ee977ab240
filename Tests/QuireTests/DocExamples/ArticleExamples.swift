import Foundation
import Quire
import QuirePostgres

// The Swift examples of the DocC articles (Sources/Quire/Quire.docc) and the README, word for word, so that the
// build checks they compile; `ArticleExampleTests` checks that every example is here. The functions are never
// called: their parameters stand for what the articles' surrounding text provides.
enum ArticleExamples {
    // MARK: Quire.md

    static func landingPage(model: ManagedObjectModel) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "Runs.sqlite"))
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            guard let entity = model.entitiesByName["Run"] else { return }
            let run = ManagedObject(entity: entity, insertInto: context)
            run.setValue(Date(), forKey: "date")
            try context.save()
        }
    }

    // MARK: PostgreSQL.md

    static func postgreSQL(model: ManagedObjectModel) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        guard let url = URL(string: "postgresql://app@db.example.org:5432/crm?schema=team") else { return }
        try coordinator.addPersistentStore(type: .postgres, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let merging = context.automaticallyMergeRemoteChanges()   // other machines' saves show up here

        withExtendedLifetime(merging) {}
    }

    // MARK: README.md

    static func readme() throws {
        // Core Data's tutorial model, built in code.
        let run = EntityDescription(name: "Run")
        run.properties = [
            AttributeDescription(name: "date", type: .date, isOptional: false),
            AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
        ]
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: ManagedObjectModel(entities: [run]))
        try coordinator.addPersistentStore(type: .sqlite, at: URL(fileURLWithPath: "Runs.sqlite"))

        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        try context.performAndWait {
            let object = ManagedObject(entity: run, insertInto: context)
            object.setValue(Date(), forKey: "date")
            try context.save()                                   // one SQLite transaction

            let request = FetchRequest<ManagedObject>(entityName: "Run")
            request.sortDescriptors = [SortKey("date", ascending: false)]
            for run in try context.fetch(request) {              // faults, filled on first access
                print(run.value(forKey: "processID") as? Int64 ?? 0)   // -1, the default
            }
        }
    }

    // MARK: GettingStarted.md

    static func gettingStarted(storeURL: URL) throws {
        let run = EntityDescription(name: "Run")
        run.properties = [
            AttributeDescription(name: "date", type: .date, isOptional: false),
            AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1),
        ]
        let model = ManagedObjectModel(entities: [run])

        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL)
        let context = ManagedObjectContext(concurrencyType: .privateQueue)
        context.persistentStoreCoordinator = coordinator

        try context.performAndWait {
            let run = ManagedObject(entity: run, insertInto: context)
            run.setValue(Date(), forKey: "date")
            try context.save()
        }

        final class Run: ManagedObject {
            @Managed("date") var date: Date
            @Managed("processID") var processID: Int64
        }
        run.managedObjectClass = Run.self          // before the model is used
        let r = Run(context: context)
        r.processID = 42

        let request = FetchRequest<Run>(entityName: "Run")
        request.sortDescriptors = [SortKey("date", ascending: false)]
        request.fetchLimit = 20
        let runs = try context.fetch(request)
        let total = try context.count(for: request)
        _ = (runs, total)

        do {
            try context.save()
        } catch QuireError.Code.persistentStoreSaveConflicts {
            context.rollback()
        }
    }

    // MARK: Documents.md

    static func documents(model: ManagedObjectModel) throws {
        DocumentTypeRegistry.shared.register(.sampleNotebook)          // "Quire Notebook", zip, SQLite inside

        let document = try PersistentDocument(type: "Quire Notebook", model: model)
        let context = document.managedObjectContext
        context.performAndWait {
            let note = ManagedObject(entity: model.entitiesByName["Note"]!, insertInto: context)
            note.setValue("Groceries", forKey: "title")
        }
        document.searchMetadata = SearchMetadata(title: "Errands", keywords: ["home"], authors: ["Ann"])
        try document.save(to: URL(fileURLWithPath: "Errands.quirenb"), ofType: "Quire Notebook", for: .saveAs)
        context.performAndWait { document.undoManager?.undo() }          // the note goes away again
        try document.save()
        document.close()
    }

    // MARK: ModelVersionsAndMigration.md

    static func migration(storeURL: URL, url: URL, v1: ManagedObjectModel, v2: ManagedObjectModel, a: URL, b: URL) throws {
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: "Journal.xcdatamodeld"))
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: bundle.currentModel)
        var options = StoreOptions()
        options.migratesAutomatically = true   // NSMigratePersistentStoresAutomaticallyOption
        options.infersMappingModel = true      // NSInferMappingModelAutomaticallyOption
        try coordinator.addPersistentStore(type: .sqlite, at: storeURL, options: options)

        var mapping = try MappingModel.inferredMappingModel(forSourceModel: v1, destinationModel: v2)
        let index = mapping.index(ofEntityMappingNamed: "EntryToEntry")!
        mapping.entityMappings[index].attributeMappings.append(
            PropertyMapping(name: "wordCount", valueExpression: .custom { source in
                guard case .string(let text)? = source["body"] else { return .integer(0) }
                return .integer(Int64(text.split(separator: " ").count))
            }))
        mapping.entityMappings[index].sourceFilter = try QueryPredicate(format: "$source.title != nil")
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: .sqlite, mapping: mapping)

        let manager = MigrationManager(sourceModel: v1, destinationModel: v2)
        manager.progressHandler = { progress in
            print(progress.fractionCompleted, progress.phase, progress.entityMappingName ?? "")
        }
        try manager.migrateStore(at: storeURL, type: .sqlite)                     // in place, inferred mapping
        try manager.migrateStore(from: a, type: .sqlite, to: b, type: .sqlite)    // into another file
    }

    final class Country5ToCountry6Policy: EntityMigrationPolicy {
        override func createDestinationInstances(
            forSource sInstance: ManagedObject, in mapping: EntityMapping, manager: MigrationManager
        ) throws {
            try super.createDestinationInstances(forSource: sInstance, in: mapping, manager: manager)
            guard let code = sInstance.value(forKey: "isoContinent") as? Int16,
                let country = manager.destinationInstances(forEntityMappingName: mapping.name, sourceInstances: [sInstance]).first,
                let continentEntity = manager.destinationModel.entitiesByName["Continent"]
            else { return }
            let context = manager.destinationContext
            let continent = context.registeredObjects.first {
                $0.entity === continentEntity && $0.value(forKey: "numericISO3166Code") as? Int16 == code
            } ?? ManagedObject(entity: continentEntity, insertInto: context)
            continent.setValue(code, forKey: "numericISO3166Code")
            country.setValue(continent, forKey: "continent")
        }
    }

    static func mappingModelMigration(storeURL: URL) throws {
        EntityMigrationPolicyRegistry.shared.register(Country5ToCountry6Policy.self, as: "Migrations.Country5ToCountry6Policy")
        let bundle = try ModelBundle(contentsOf: URL(fileURLWithPath: "Moody.xcdatamodeld"))
        let mappingModels = URL(fileURLWithPath: "Migrations")   // Moody 2-Moody 3.xcmappingmodel … Moody 5-Moody 6.xcmappingmodel
        try MigrationManager.migrateStore(at: storeURL, type: .sqlite, versions: bundle.models, mappingModelURLs: [mappingModels])
    }

    static func migrationPasses(model2: ManagedObjectModel, model3: ManagedObjectModel, folder: URL, model2Store: URL, model3Store: URL) throws {
        let manager = MigrationManager(sourceModel: model2, destinationModel: model3)
        for pass in ["Model2_to_Model3_User", "Model2_to_Model3"] {
            let mapping = try MappingModel(contentsOf: folder.appendingPathComponent(pass + ".xcmappingmodel"))
            try manager.migrateStore(from: model2Store, type: .sqlite, mapping: mapping, to: model3Store, type: .sqlite)
        }
    }

    static func stagedMigration(storeURL: URL, newestModel: ManagedObjectModel, v1Checksum: String, v2Checksum: String, v3Checksum: String) throws {
        let bundleURL = URL(fileURLWithPath: "SampleModel3.xcdatamodeld")
        let v1 = try ManagedObjectModelReference(name: "SampleModel3", in: bundleURL, versionChecksum: v1Checksum)
        let v2 = try ManagedObjectModelReference(name: "SampleModel3_v2", in: bundleURL, versionChecksum: v2Checksum)
        let addPets = CustomMigrationStage(migratingFrom: v1, to: v2)
        addPets.label = "V1 to V2 (Add Pet entity and denormalize User entity)"
        addPets.didMigrateHandler = { manager, _ in
            guard let container = manager.container, let petEntity = container.managedObjectModel.entitiesByName["Pet"] else { return }
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for user in try context.fetch(FetchRequest<ManagedObject>(entityName: "User")) {
                    guard let petName = user.value(forKey: "petName") as? String else { continue }
                    let pet = ManagedObject(entity: petEntity, insertInto: context)
                    pet.setValue(petName, forKey: "name")
                    user.setValue(pet, forKey: "pet")
                }
                try context.save()
            }
        }
        let dropPetNames = LightweightMigrationStage([v3Checksum])
        dropPetNames.label = "V2 to V3 (remove petName from User entity)"

        let container = try PersistentContainer(name: "SampleModel3", managedObjectModel: newestModel)
        let description = PersistentStoreDescription(url: storeURL)
        description.setOption(StagedMigrationManager([addPets, dropPetNames]), forKey: "NSPersistentStoreStagedMigrationManagerOptionKey")
        container.persistentStoreDescriptions = [description]
        container.loadPersistentStores { _, error in if let error { print(error) } }
    }

    // MARK: OpeningMacDocuments.md

    static func openingMacDocuments() throws {
        let url = URL(fileURLWithPath: "SampleModel_V1.sqlite")
        let (model, source) = try ManagedObjectModel.forStore(at: url, type: .sqlite, modelFile: nil)
        print("Opening with \(source)")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        var options = StoreOptions()
        options.isReadOnly = true
        try coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
    }

    // MARK: Predicates.md

    static func predicates(context: ManagedObjectContext, model: ManagedObjectModel, lastMonth: Date) throws {
        do {
            let request = FetchRequest<ManagedObject>(entityName: "Employee")
            request.predicate = try QueryPredicate(format: "salary >= %d AND department.name ==[cd] %@", 200, "research")
            request.sortDescriptors = [SortKey("lastName", comparator: .localizedStandardCompare)]
            let employees = try context.fetch(request)
            _ = employees
        }
        do {
            let request = FetchRequest<[String: Any]>(entityName: "Employee")
            request.propertiesToFetch = [
                "department.name",
                .expression(ExpressionDescription(name: "total", function: .sum, of: "salary", resultType: .integer64)),
                .expression(ExpressionDescription(name: "people", function: .count, of: "SELF", resultType: .integer64)),
            ]
            request.propertiesToGroupBy = ["department.name"]
            request.havingPredicate = try QueryPredicate(format: "total > 1000")
            request.sortDescriptors = [SortKey("total", ascending: false)]
        }
        do {
            let request = FetchRequest<ManagedObject>(entityName: "Publication")
            request.predicate = try QueryPredicate(format:
                "(mainAuthor.firstName like[cd] $FIRST_NAME) AND (mainAuthor.lastName like[cd] $LAST_NAME) AND (publicationDate > $DATE)")
            model.setFetchRequestTemplate(request, forName: "publicationsForAuthorSinceDate")

            // Later, with the model in use:
            let fetch = try model.fetchRequestFromTemplate(
                withName: "publicationsForAuthorSinceDate",
                substitutionVariables: ["FIRST_NAME": "Ann", "LAST_NAME": "Lee", "DATE": lastMonth])
            _ = fetch
        }
    }

    // MARK: SearchIndexing.md

    static func searchIndexing() throws {
        let metadata = try SearchMetadata(contentsOf: URL(fileURLWithPath: "Errands.quirenb"))
        print(metadata.title ?? "", metadata.keywords, metadata.indexedValues["Note.title"] ?? [])
    }

    // MARK: PortingFromCoreData.md

    static func compositeAttributes() {
        let address = CompositeAttributeDescription(name: "address", elements: [
            AttributeDescription(name: "street", type: .string),
            AttributeDescription(name: "city", type: .string),
            AttributeDescription(name: "postcode", type: .string, isOptional: false, defaultValue: "00000"),
        ])
        let person = EntityDescription(name: "Person", properties: [AttributeDescription(name: "name", type: .string), address])
        _ = person
    }

    // MARK: StoreTypes.md

    static func storeTypes(model: ManagedObjectModel, someURL: URL) throws {
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .binary, at: URL(fileURLWithPath: "Notes.quire"))
        try coordinator.addPersistentStore(type: nil, at: someURL)   // SQLite, XML or binary, told from the content
    }

    static func remoteChanges(coordinator: PersistentStoreCoordinator, merger: PersistentHistoryMerger) -> any NSObjectProtocol {
        let observer = NotificationCenter.default.addObserver(
            forName: .persistentStoreRemoteChange, object: coordinator, queue: nil
        ) { _ in
            merger.context.perform { _ = try? merger.mergeNewTransactions() }
        }
        return observer
    }

    // MARK: ValidationAndMerging.md

    static func validation(model: ManagedObjectModel, context: ManagedObjectContext) throws {
        // Core Data's tutorial: a process ID must be positive, and says so in the user's words.
        let processID = AttributeDescription(name: "processID", type: .integer64, isOptional: false, defaultValue: -1)
        processID.setValidationPredicates([try QueryPredicate(format: "SELF > 0")], withValidationWarnings: ["Process ID < 1"])
        model.localizationDictionary = [
            "Property/processID/Entity/Run": "Process ID",
            "ErrorString/Process ID < 1": "Process ID must not be less than 1",
        ]
        // …
        do {
            try context.save()
        } catch let error as QuireError where error.code.isValidationError {
            print(error.message)            // Process ID must not be less than 1
            print(error.context.key ?? "", error.context.value ?? .null)   // processID -1
        }

        final class Run: ManagedObject {
            @Managed("processID") var processID: Int64
            override class var keysWithValidationMethods: Set<String> { ["processID"] }
            override func validate(key: String, value: inout Any?) throws {
                guard key == "processID" else { return try super.validate(key: key, value: &value) }
                if value as? Int64 == 1 { throw QuireError(.managedObjectValidation, "Process ID 1 is reserved for init.") }
            }
        }
    }

    static func merging(background: ManagedObjectContext, viewContext: ManagedObjectContext, runID: ObjectID, userPressedOK: Bool) throws {
        let observer = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveNotification,
                                                              object: background, queue: nil) { notification in
            guard let changes = ContextDidSave(notification) else { return }
            viewContext.perform { viewContext.mergeChanges(fromContextDidSave: changes) }
        }
        NotificationCenter.default.removeObserver(observer)

        let editor = ManagedObjectContext(concurrencyType: .privateQueue)
        editor.parent = viewContext
        try editor.performAndWait {
            let run = try editor.existingObject(with: runID)
            run.setValue(Int64(7), forKey: "processID")
            if userPressedOK { try editor.save() } else { editor.rollback() }
        }
        try viewContext.performAndWait { try viewContext.save() }
    }
}
